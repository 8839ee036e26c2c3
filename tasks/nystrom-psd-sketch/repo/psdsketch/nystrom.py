"""Fixed-rank approximation of a positive-semidefinite matrix from streaming
data (Tropp, Yurtsever, Udell and Cevher, NeurIPS 2017): the Nystrom sketch
and its numerically stable fixed-rank reconstruction.

Use the helpers in ``psdsketch.linalg``.
"""

import numpy as np

from psdsketch.linalg import cholesky_upper, right_solve_upper, spectral_norm


class NystromSketch:
    """The sketch Y = A Omega of a PSD matrix A presented as a stream of linear updates."""

    def __init__(self, omega):
        """omega: (n, k) test matrix, 1 <= k <= n. Starts from Y = 0 (A = 0)."""
        raise NotImplementedError

    @property
    def n(self):
        raise NotImplementedError

    @property
    def k(self):
        raise NotImplementedError

    def linear_update(self, H, theta=1.0, eta=1.0):
        """Reflect A <- theta A + eta H in the sketch; H is (n, n), or (n,) for v v^T. Returns self."""
        raise NotImplementedError

    def fixed_rank(self, r):
        """(U, lam) of the rank-r PSD approximation of the sketched matrix."""
        raise NotImplementedError


def stability_shift(Y):
    """The shift nu of the stable reconstruction (a float)."""
    raise NotImplementedError


def simple_nystrom(Y, omega):
    """The basic Nystrom approximation Y (Omega^T Y)^+ Y^T, an (n, n) array."""
    raise NotImplementedError


def fixed_rank_psd_approx(Y, omega, r):
    """(U, lam): U (n, r) with orthonormal columns, lam (r,) non-negative, decreasing."""
    raise NotImplementedError
