"""Small dense linear-algebra helpers (numpy only)."""

import numpy as np


def spectral_norm(M):
    """The spectral norm ||M||_2 (largest singular value) of a 2-D array."""
    return float(np.linalg.norm(np.asarray(M, dtype=np.float64), 2))


def cholesky_upper(B):
    """The upper-triangular Cholesky factor C of a symmetric positive-definite
    B, so that B = C^T C (MATLAB's chol). Raises numpy.linalg.LinAlgError when
    B is not positive definite."""
    return np.linalg.cholesky(np.asarray(B, dtype=np.float64)).T


def right_solve_upper(Y, C):
    """Y C^{-1} for a square upper-triangular C (MATLAB's Y / C), computed by
    solving C^T X^T = Y^T."""
    Y = np.asarray(Y, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    return np.linalg.solve(C.T, Y.T).T
