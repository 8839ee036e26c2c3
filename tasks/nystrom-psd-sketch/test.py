import unittest

import numpy as np

from recode_check import check, outcome

from psdsketch.nystrom import NystromSketch, fixed_rank_psd_approx, simple_nystrom, stability_shift
from psdsketch.testmatrix import gaussian_test_matrix, psd_test_matrix

N, K = 60, 12
DATA = {}


def setUpModule():
    # A PSD matrix with polynomially decaying eigenvalues, a test matrix and the sketch A Omega.
    A = psd_test_matrix(N, 1.0 / np.arange(1, N + 1) ** 2, seed=1)
    omega = gaussian_test_matrix(N, K, seed=2)
    DATA.update(A=A, omega=omega, Y=A @ omega)
    # A matrix of rank 3 (exactly low rank: Omega^T A Omega is singular for k > 3).
    low = np.r_[4.0, 2.0, 1.0, np.zeros(N - 3)]
    DATA["A3"] = psd_test_matrix(N, low, seed=3)


def plain(x):
    """The candidate's array as numpy's own ndarray: a property test.py computes from it uses numpy's
    operators, not those of a subclass the candidate returns."""
    return np.ndarray.view(np.asarray(x), np.ndarray)


def signed(U):
    """Columns of U with the sign fixed: the largest entry in absolute value is positive."""
    U = np.array(U, dtype=np.float64)
    idx = np.argmax(np.abs(U), axis=0)
    return U * np.sign(U[idx, np.arange(U.shape[1])])


def sketch_info(omega):
    """What a new sketch of omega holds: [n, k, Y]."""
    sk = NystromSketch(omega)
    return [sk.n, sk.k, np.array(sk.Y, dtype=np.float64)]


def fixed_rank_signed(Y, omega, r):
    """fixed_rank_psd_approx with the signs of U fixed: [U, lam]."""
    U, lam = fixed_rank_psd_approx(Y, omega, r)
    return [signed(U), np.array(lam, dtype=np.float64)]


class TestNystromSketch(unittest.TestCase):
    def test_stream_of_updates(self):
        sk = NystromSketch(DATA["omega"])
        check(self, "sketch_shape", [sk.n, sk.k, bool(np.all(plain(sk.Y) == 0.0))])
        A = DATA["A"]
        # A = 0.5 A + 0.5 A, streamed; then decay: A <- 0.9 A + 0.1 A.
        sk.linear_update(0.5 * A)
        sk.linear_update(A, theta=1.0, eta=0.5)
        check(self, "sketch_sum", sk.Y, rtol=1e-12, atol=1e-15)
        sk.linear_update(A, theta=0.9, eta=0.1)
        check(self, "sketch_decay", sk.Y, rtol=1e-12, atol=1e-15)
        self.assertIs(sk.linear_update(A, theta=0.0), sk)
        # Defaults theta = eta = 1 accumulate: A <- A + A.
        sk.linear_update(A)
        check(self, "sketch_defaults", sk.Y, rtol=1e-12, atol=1e-15)

    def test_rank_one_and_errors(self):
        rng = np.random.default_rng(5)
        v = rng.standard_normal(N)
        sk = NystromSketch(DATA["omega"])
        sk.linear_update(v, theta=1.0, eta=2.0)
        sk.linear_update(v[::-1], theta=0.5, eta=1.0)
        check(self, "sketch_rank_one", sk.Y, rtol=1e-12, atol=1e-15)
        full = NystromSketch(DATA["omega"])
        full.linear_update(np.outer(v, v), theta=1.0, eta=2.0)
        full.linear_update(np.outer(v[::-1], v[::-1]), theta=0.5, eta=1.0)
        check(self, "sketch_rank_one_equals_full", bool(np.allclose(plain(sk.Y), plain(full.Y), rtol=1e-12, atol=1e-12)))
        # The sketch keeps its own copy of Omega.
        om = gaussian_test_matrix(10, 3, seed=0)
        sk2 = NystromSketch(om)
        om[0, 0] = 99.0
        check(self, "sketch_copies_omega", float(sk2.omega[0, 0]), rtol=1e-15)
        updates = (rng.standard_normal(N), np.ones(N + 1), 0.5 * np.eye(N), np.ones((N, N + 1)), np.linspace(-1.0, 1.0, N))
        check(self, "sketch_update_mixed", [outcome(lambda H: np.array(sk.linear_update(H).Y, dtype=np.float64), H) for H in updates],
              rtol=1e-12, atol=1e-15)
        # Plain lists are accepted; k = n and k = 1 are valid sketch sizes.
        listed = NystromSketch(DATA["omega"].tolist()).linear_update(v.tolist())
        check(self, "sketch_from_lists", listed.Y, rtol=1e-12, atol=1e-15)
        check(self, "sketch_sizes", [NystromSketch(np.eye(4)).k, NystromSketch(np.ones((4, 1))).k])
        check(self, "sketch_bad_omega", [outcome(sketch_info, np.ones((5, 2))), outcome(sketch_info, np.ones((3, 5))),
                                         outcome(sketch_info, np.ones((3, 0))), outcome(sketch_info, np.eye(3)),
                                         outcome(sketch_info, np.ones(4)), outcome(sketch_info, [[1.0], [2.0]])])

    def test_fixed_rank_method(self):
        sk = NystromSketch(DATA["omega"]).linear_update(DATA["A"])
        U, lam = sk.fixed_rank(5)
        check(self, "method_lam", lam, rtol=1e-9, atol=1e-14)
        check(self, "method_U", signed(U), rtol=1e-7, atol=1e-10)


class TestStabilityShift(unittest.TestCase):
    def test_values(self):
        # ||diag(3, 4)||_2 = 4 (its Frobenius norm is 5).
        check(self, "shift_diag", stability_shift(np.diag([3.0, 4.0])), rtol=1e-12)
        check(self, "shift_sketch", stability_shift(DATA["Y"]), rtol=1e-12)
        check(self, "shift_zero", stability_shift(np.zeros((4, 2))))


class TestSimpleNystrom(unittest.TestCase):
    def test_values(self):
        approx = simple_nystrom(DATA["Y"], DATA["omega"])
        check(self, "simple_decay", approx, rtol=1e-6, atol=1e-9)
        # A matrix of rank <= k is recovered exactly (up to rounding).
        A3 = DATA["A3"]
        err = np.max(np.abs(plain(simple_nystrom(A3 @ DATA["omega"], DATA["omega"])) - A3))
        check(self, "simple_exact_low_rank", bool(err < 1e-10))
        # Lists are accepted.
        check(self, "simple_lists", simple_nystrom(DATA["Y"][:5, :2].tolist(), DATA["omega"][:5, :2].tolist()), rtol=1e-8, atol=1e-12)
        D3 = np.diag([2.0, 1.0, 0.5])
        check(self, "simple_errors", [outcome(simple_nystrom, D3[:, :2], np.eye(3)[:, :2]),
                                      outcome(simple_nystrom, DATA["Y"][:, :5], DATA["omega"]),
                                      outcome(simple_nystrom, np.ones((3, 5)), np.ones((3, 5))),
                                      outcome(simple_nystrom, DATA["Y"][:8, :3], DATA["omega"][:8, :3]),
                                      outcome(simple_nystrom, np.ones((3, 0)), np.ones((3, 0))),
                                      outcome(simple_nystrom, D3, np.eye(3))], rtol=1e-6, atol=1e-9)


class TestFixedRankPSDApprox(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.U5, cls.lam5 = fixed_rank_psd_approx(DATA["Y"], DATA["omega"], 5)

    def test_decaying_spectrum(self):
        U, lam = self.U5, self.lam5
        self.assertEqual(U.shape, (N, 5))
        self.assertEqual(lam.shape, (5,))
        check(self, "fr_lam_r5", lam, rtol=1e-9, atol=1e-14)
        check(self, "fr_U_r5", signed(U), rtol=1e-7, atol=1e-10)
        check(self, "fr_orthonormal", bool(np.allclose(plain(U).T @ plain(U), np.eye(5), atol=1e-12)))
        check(self, "fr_reconstruction", (U * lam) @ U.T, rtol=1e-7, atol=1e-12)

    def test_full_sketch_rank(self):
        U, lam = fixed_rank_psd_approx(DATA["Y"], DATA["omega"], K)
        check(self, "fr_lam_rk", lam, rtol=1e-8, atol=1e-13)
        # Truncating to rank r keeps the r leading pairs of the rank-k result.
        check(self, "fr_nested", bool(np.allclose(plain(lam)[:5], plain(self.lam5), rtol=1e-12)))

    def test_rank_deficient(self):
        # Omega^T A Omega is singular: without the shift the Cholesky factorisation fails.
        Y = DATA["A3"] @ DATA["omega"]
        U, lam = fixed_rank_psd_approx(Y, DATA["omega"], 6)
        check(self, "fr_rank3_lam", lam, rtol=1e-9, atol=1e-12)
        check(self, "fr_rank3_reconstruction", (U[:, :3] * lam[:3]) @ U[:, :3].T, rtol=1e-7, atol=1e-10)

    def test_exact_diagonal(self):
        # A diagonal A with coordinate test vectors: every step is exact up to
        # rounding, so the removal of the shift nu (about 4.4e-16 here) is
        # visible on the eigenvalue 1e-15, and the clipping at zero on the zeros.
        diag = np.array([2.0, 1e-15, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0])
        omega = np.eye(8)[:, :6]
        U, lam = fixed_rank_psd_approx(np.diag(diag) @ omega, omega, 6)
        check(self, "fr_diag_lam", lam, rtol=1e-9, atol=1e-29)
        check(self, "fr_diag_nonnegative", bool(np.all(plain(lam) >= 0.0)))
        check(self, "fr_diag_U", np.abs(U[:, :3]), rtol=1e-12, atol=1e-15)

    def test_nonsymmetric_sketch(self):
        # Omega^T Y is symmetrised before the Cholesky factorisation, so a
        # slightly non-symmetric update is tolerated.
        G = 1e-3 * np.random.default_rng(9).standard_normal((N, N))
        Y = (DATA["A"] + G) @ DATA["omega"] + 0.05 * DATA["omega"]
        U, lam = fixed_rank_psd_approx(Y, DATA["omega"], 4)
        check(self, "fr_nonsym_lam", lam, rtol=1e-8, atol=1e-13)
        check(self, "fr_nonsym_reconstruction", (U * lam) @ U.T, rtol=1e-7, atol=1e-11)

    def test_edges_and_errors(self):
        U, lam = fixed_rank_psd_approx(np.zeros((N, K)), DATA["omega"], 4)
        check(self, "fr_zero_sketch", [U, lam])
        # r = 1 and k = 1 are valid; so is a square test matrix (k = n).
        U1, lam1 = fixed_rank_psd_approx(DATA["Y"].tolist(), DATA["omega"].tolist(), 1)
        check(self, "fr_r1", [lam1, np.abs(U1)], rtol=1e-8, atol=1e-12)
        om1 = DATA["omega"][:, :1]
        check(self, "fr_k1", fixed_rank_psd_approx(DATA["A"] @ om1, om1, 1)[1], rtol=1e-9)
        eye = np.eye(6)
        check(self, "fr_square", fixed_rank_psd_approx(DATA["A"][:6, :6], eye, 3)[1], rtol=1e-9)
        D3 = np.diag([3.0, 2.0, 1.0])
        check(self, "fr_bad_sizes", [outcome(fixed_rank_signed, D3[:, :2], np.eye(3)[:, :2], 1),
                                     outcome(fixed_rank_signed, np.ones((3, 5)), np.ones((3, 5)), 1),
                                     outcome(fixed_rank_signed, D3, np.eye(3), 2),
                                     outcome(fixed_rank_signed, np.ones((3, 0)), np.ones((3, 0)), 1)], rtol=1e-7, atol=1e-10)
        check(self, "fr_rank_mixed", [outcome(fixed_rank_signed, DATA["Y"], DATA["omega"], r) for r in (3, 0, K + 1, 2, 2.0, True, 1)],
              rtol=1e-7, atol=1e-10)
        check(self, "fr_shape_mismatch", [outcome(fixed_rank_signed, DATA["Y"][:, :4], DATA["omega"][:, :4], 2),
                                          outcome(fixed_rank_signed, DATA["Y"].T, DATA["omega"], 2),
                                          outcome(fixed_rank_signed, DATA["Y"][:, ::2], DATA["omega"][:, ::2], 2)],
              rtol=1e-7, atol=1e-10)
