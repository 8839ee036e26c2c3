import unittest

import numpy as np

from recode_check import check, outcome

from rational.aaa import aaa, barycentric_eval, cauchy_loewner
from rational.samples import circle_points, linspace_grid

X = linspace_grid(-1.0, 1.0, 200)
XTEST = linspace_grid(-0.99, 0.99, 31) + 1e-3
F_COMPLEX = lambda z: np.exp((1.0 + 1.0j) * z) / (1.6 - z)  # noqa: E731
ZC = circle_points(128)


def ri(a):
    """A complex array as a float64 array with a trailing (real, imaginary) axis."""
    a = np.asarray(a)
    return np.stack([a.real, a.imag], axis=-1).astype(np.float64)


def phase_fixed(w):
    """Weights scaled to unit norm with the largest entry real and positive."""
    w = np.asarray(w, dtype=np.complex128)
    k = int(np.argmax(np.abs(w)))
    return w * (abs(w[k]) / w[k]) / np.linalg.norm(w)


class TestCauchyLoewner(unittest.TestCase):
    def test_hand(self):
        C, A = cauchy_loewner([0.5, 2.0, -1.0], [1.5, 3.0, 0.0], [0.0, 1.0], [1.0, 2.0])
        check(self, "cl_cauchy", C, rtol=1e-15)
        check(self, "cl_loewner", A, rtol=1e-15)
        C, A = cauchy_loewner(np.array([1j, 2.0]), np.array([1.0 + 1j, 0.5]), np.array([0.0]), np.array([2.0]))
        check(self, "cl_complex", [ri(C), ri(A)], rtol=1e-15)
        check(
            self,
            "cl_lengths",
            [
                outcome(cauchy_loewner, Z, F, [0.0], [1.0])
                for Z, F in (([0.5, 2.0], [1.0, 3.0]), ([0.5, 2.0], [1.0]), ([-1.0], [4.0]))
            ],
            rtol=1e-15,
        )


class TestBarycentricEval(unittest.TestCase):
    def test_values_and_support_points(self):
        zj, fj, wj = np.array([0.0, 1.0, 3.0]), np.array([1.0, 2.0, -1.0]), np.array([0.5, -1.0, 0.25])
        check(self, "bary_hand", barycentric_eval(np.array([0.5, 2.0, -4.0]), zj, fj, wj), rtol=1e-14)
        # r interpolates: at a support point it returns f_j exactly, also inside an array.
        check(self, "bary_at_support", barycentric_eval(np.array([1.0, 0.25, 3.0, 0.0]), zj, fj, wj), rtol=1e-14)
        # The shape of z is kept (here 2 x 2), and a scalar gives a 0-d array.
        out = barycentric_eval(np.array([[0.5, 1.0], [2.0, 5.0]]), zj, fj, wj)
        self.assertEqual(out.shape, (2, 2))
        check(self, "bary_2d", out, rtol=1e-14)
        check(self, "bary_scalar", float(barycentric_eval(2.0, zj, fj, wj)), rtol=1e-14)
        # Plain lists are accepted.
        check(self, "bary_lists", barycentric_eval([0.5, 2.0], zj.tolist(), fj.tolist(), wj.tolist()), rtol=1e-14)
        check(self, "bary_lengths", [outcome(barycentric_eval, 0.5, zj, f, wj) for f in (fj[::-1].copy(), fj[:2], 2.0 * fj)], rtol=1e-14)
        supports = (([1.0], [3.0], [2.0]), ([], [], []), ([0.0, 2.0], [1.0, -1.0], [1.0, -1.0]))
        check(self, "bary_sizes", [outcome(barycentric_eval, 0.5, z, f, w) for z, f, w in supports], rtol=1e-14)

    def test_complex(self):
        zj = np.array([1.0, 1j, -1.0])
        fj = np.array([2.0, 1j, 0.5 - 0.5j])
        wj = np.array([1.0, 0.5 + 0.5j, -1.0])
        check(self, "bary_complex", ri(barycentric_eval(np.array([0.0, 0.5j, 2.0, 1j]), zj, fj, wj)), rtol=1e-14, atol=1e-15)


class TestAAA(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.exp = aaa(np.exp(X), X)

    def test_exp(self):
        res = self.exp
        self.assertEqual(set(res), {"zj", "fj", "wj", "errvec"})
        check(self, "aaa_exp_zj", res["zj"], rtol=0.0)
        check(self, "aaa_exp_fj", res["fj"], rtol=0.0)
        check(self, "aaa_exp_errvec", res["errvec"], rtol=1e-6, atol=1e-13)
        r = barycentric_eval(XTEST, res["zj"], res["fj"], res["wj"])
        check(self, "aaa_exp_values", r, rtol=1e-12)

    def test_first_steps(self):
        # Early iterations: the weights are well determined (unit norm, phase fixed).
        res = aaa(np.exp(X), X, mmax=3)
        check(self, "aaa_exp_3_zj", res["zj"], rtol=0.0)
        check(self, "aaa_exp_3_wj", ri(phase_fixed(res["wj"])), rtol=1e-9, atol=1e-12)
        check(self, "aaa_exp_3_errvec", res["errvec"], rtol=1e-9)
        res = aaa(np.exp(X), X, mmax=1)
        check(self, "aaa_exp_1", [res["zj"], res["wj"], res["errvec"]], rtol=1e-12)

    def test_log_and_tolerance(self):
        F = np.log(2.1 - X)
        res = aaa(F, X)
        check(self, "aaa_log_zj", res["zj"], rtol=0.0)
        check(self, "aaa_log_values", barycentric_eval(XTEST, res["zj"], res["fj"], res["wj"]), rtol=1e-12)
        loose = aaa(F, X, tol=1e-6)
        check(self, "aaa_log_tol6", [loose["zj"], loose["errvec"]], rtol=1e-6, atol=1e-13)

    def test_complex_circle(self):
        res = aaa(F_COMPLEX, ZC)
        self.assertEqual(res["zj"].dtype, np.complex128)
        check(self, "aaa_circle_zj", ri(res["zj"]), rtol=0.0)
        check(self, "aaa_circle_errvec", res["errvec"], rtol=1e-6, atol=1e-13)
        inner = 0.7 * circle_points(9) + 0.05j
        check(self, "aaa_circle_values", ri(barycentric_eval(inner, res["zj"], res["fj"], res["wj"])), rtol=1e-11, atol=1e-13)

    def test_exact_rational_and_mmax(self):
        # A rational function of type (1, 1) is recovered with two support points.
        rat = aaa(lambda x: (3.0 * x + 1.0) / (x - 2.0), X)
        check(self, "aaa_rational_m", len(rat["zj"]))
        check(self, "aaa_rational_values", barycentric_eval(XTEST, rat["zj"], rat["fj"], rat["wj"]), rtol=1e-13)
        # |x| does not converge to 1e-13: the loop stops after mmax steps.
        grid = linspace_grid(-1.0, 1.3, 300)
        res = aaa(np.abs(grid), grid, mmax=12)
        check(self, "aaa_abs_mmax", [len(res["zj"]), len(res["errvec"])])
        check(self, "aaa_abs_zj", res["zj"], rtol=0.0)
        check(self, "aaa_abs_errvec", res["errvec"], rtol=1e-6, atol=1e-13)

    def test_relative_tolerance(self):
        # The tolerance is relative to max |F|: scaling F does not change the support set. The scale is a
        # power of two, so every step scales exactly and the greedy choices cannot differ by rounding.
        small = aaa(np.exp(X), X)
        big = aaa(2.0**20 * np.exp(X), X)
        np.testing.assert_array_equal(big["zj"], small["zj"])
        check(self, "aaa_scaled_support_size", len(big["zj"]))
        # A constant (a power of two, so no rounding) is matched exactly at the
        # first step: the error is 0, and 0 <= tol = 0 stops there.
        const = aaa(np.full(10, 2.0), linspace_grid(0.0, 1.0, 10), tol=0.0)
        check(self, "aaa_constant", [const["zj"], const["fj"], const["errvec"]], rtol=0.0)

    def test_default_mmax_and_dtype(self):
        # With the defaults (tol 1e-13, mmax 100) |x| on 150 points converges.
        grid = linspace_grid(-1.0, 1.3, 150)
        res = aaa(np.abs(grid), grid)
        check(self, "aaa_abs_defaults", len(res["errvec"]))
        # Real integer data on complex points: everything is complex128.
        cres = aaa(np.arange(16) % 5, circle_points(16), mmax=3)
        check(self, "aaa_int_on_circle", [str(cres["zj"].dtype), str(cres["fj"].dtype), str(cres["wj"].dtype)])
        check(self, "aaa_int_on_circle_fj", ri(cres["fj"]), rtol=0.0)

    def test_errors(self):
        # The weights are only determined up to a factor: compare the support points and errors.
        def fit(F, Z, **kwargs):
            res = aaa(F, Z, **kwargs)
            return [res["zj"], res["fj"], res["errvec"]]

        Z = linspace_grid(0.0, 1.0, 20)
        pairs = ((1.0 / (2.0 - Z), Z), (np.ones(3), np.arange(4.0)), (np.array([1.0, 3.0]), np.array([0.0, 1.0])))
        check(self, "aaa_lengths", [outcome(fit, F, Zs) for F, Zs in pairs], rtol=1e-6, atol=1e-13)
        calls = ((np.exp(Z), Z, 2), (np.ones(3), np.arange(3.0), 0), (np.exp(Z), Z, 1))
        check(self, "aaa_mmax_range", [outcome(fit, F, Zs, mmax=m) for F, Zs, m in calls], rtol=1e-6, atol=1e-13)
        pairs = ((np.cos(3.0 * Z), Z), ([], []), ([2.0, 2.0], [0.0, 1.0]))
        check(self, "aaa_sizes", [outcome(fit, F, Zs) for F, Zs in pairs], rtol=1e-6, atol=1e-13)
        pairs = ((np.array([1.0, 3.0]), np.array([0.0, 1.0])), (np.array([1.0, np.inf]), np.array([0.0, 1.0])), (np.exp(-Z), Z))
        check(self, "aaa_finite", [outcome(fit, F, Zs) for F, Zs in pairs], rtol=1e-6, atol=1e-13)
