"""Fixed-rank approximation of a positive-semidefinite matrix from streaming
data (Tropp, Yurtsever, Udell and Cevher, NeurIPS 2017): the Nystrom sketch
and its numerically stable fixed-rank reconstruction (Algorithm 3)."""

import numpy as np

from psdsketch.linalg import cholesky_upper, right_solve_upper, spectral_norm


def _as_sketch_pair(Y, omega):
    Y = np.asarray(Y, dtype=np.float64)
    omega = np.asarray(omega, dtype=np.float64)
    if omega.ndim != 2 or Y.shape != omega.shape:
        raise ValueError("Y and omega must be n x k arrays of the same shape")
    n, k = omega.shape
    if not 1 <= k <= n:
        raise ValueError("the sketch size k must satisfy 1 <= k <= n")
    return Y, omega


class NystromSketch:
    """The sketch Y = A Omega of a PSD matrix A presented as a stream of linear updates."""

    def __init__(self, omega):
        omega = np.array(omega, dtype=np.float64)
        if omega.ndim != 2 or not 1 <= omega.shape[1] <= omega.shape[0]:
            raise ValueError("omega must be an n x k array with 1 <= k <= n")
        # Sec. 2.2 (Algorithm 1): a fixed n x k test matrix Omega, and the
        # sketch Y = A Omega of the (initially zero) matrix A.
        self.omega = omega
        self.Y = np.zeros_like(omega)

    @property
    def n(self):
        return self.omega.shape[0]

    @property
    def k(self):
        return self.omega.shape[1]

    def linear_update(self, H, theta=1.0, eta=1.0):
        """Reflect A <- theta A + eta H in the sketch: Y <- theta Y + eta H Omega."""
        H = np.asarray(H, dtype=np.float64)
        # Eq. (2.2): the sketch is linear in A, so a linear update of A is a
        # linear update of Y; A itself is never stored.
        if H.shape == (self.n,):
            # H = v v^T given by v: H Omega = v (v^T Omega), O(nk) work.
            self.Y = theta * self.Y + eta * np.outer(H, H @ self.omega)
        elif H.shape == (self.n, self.n):
            self.Y = theta * self.Y + eta * (H @ self.omega)
        else:
            raise ValueError(f"H must be an (n, n) matrix or an (n,) vector, got shape {H.shape}")
        return self

    def fixed_rank(self, r):
        """(U, lam) of the rank-r PSD approximation of the sketched matrix."""
        return fixed_rank_psd_approx(self.Y, self.omega, r)


def stability_shift(Y):
    """nu = eps * ||Y||_2, the shift of Algorithm 3 (eps: float64 machine epsilon)."""
    # Algorithm 3, line 2: nu = mu * norm(Y) with mu = 2.2e-16 and norm the
    # spectral norm (MATLAB's norm of a matrix).
    return float(np.finfo(np.float64).eps * spectral_norm(Y))


def simple_nystrom(Y, omega):
    """The basic Nystrom approximation A_nys = Y (Omega^T Y)^+ Y^T (n x n)."""
    Y, omega = _as_sketch_pair(Y, omega)
    # Eq. (2.3): A_nys = (A Omega)(Omega^T A Omega)^+ (A Omega)^T, from the sketch alone.
    return Y @ np.linalg.pinv(omega.T @ Y) @ Y.T


def fixed_rank_psd_approx(Y, omega, r):
    """(U, lam): the rank-r PSD approximation U diag(lam) U^T (Algorithm 3)."""
    Y, omega = _as_sketch_pair(Y, omega)
    n, k = omega.shape
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 1 <= r <= k:
        raise ValueError(f"the rank r must be an integer in [1, {k}], got {r!r}")
    if not np.any(Y):
        # The sketch of the zero matrix: its approximation is zero (the
        # Cholesky factorisation below would fail).
        return np.zeros((n, r)), np.zeros(r)
    # Line 2: the shift nu.
    nu = stability_shift(Y)
    # Line 3: sketch of the shifted matrix A + nu I, Y_nu = Y + nu Omega.
    Y_nu = Y + nu * omega
    # Line 4: B = Omega^T Y_nu.
    B = omega.T @ Y_nu
    # Line 5: C = chol((B + B^T) / 2), upper triangular, forcing symmetry.
    C = cholesky_upper((B + B.T) / 2.0)
    # Line 6: E = Y_nu C^{-1} (a triangular solve, not an explicit inverse), and its thin SVD.
    E = right_solve_upper(Y_nu, C)
    U, sigma, _ = np.linalg.svd(E, full_matrices=False)
    # Line 7: truncate to rank r (the singular values come in decreasing order).
    U = U[:, :r]
    # Line 8: remove the shift, Lambda = max{0, Sigma^2 - nu I}.
    lam = np.maximum(sigma[:r] ** 2 - nu, 0.0)
    return U, lam
