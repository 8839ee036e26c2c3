"""Random test matrices for sketching."""

import numpy as np


def gaussian_test_matrix(n, k, seed, orthonormalize=True):
    """An n x k standard normal test matrix Omega drawn with
    numpy.random.default_rng(seed); with ``orthonormalize`` its columns are
    replaced by an orthonormal basis of their span (reduced QR).

    Raises ValueError unless 1 <= k <= n."""
    if isinstance(n, bool) or isinstance(k, bool) or not (isinstance(n, int) and isinstance(k, int)) or not 1 <= k <= n:
        raise ValueError(f"need integers 1 <= k <= n, got n={n!r}, k={k!r}")
    omega = np.random.default_rng(seed).standard_normal((n, k))
    if orthonormalize:
        omega, _ = np.linalg.qr(omega)
    return omega


def psd_test_matrix(n, eigenvalues, seed):
    """A symmetric PSD n x n matrix Q diag(eigenvalues) Q^T with a random
    orthogonal Q (from numpy.random.default_rng(seed)); ``eigenvalues`` is a
    sequence of n non-negative numbers."""
    lam = np.asarray(eigenvalues, dtype=np.float64)
    if lam.shape != (n,) or np.any(lam < 0):
        raise ValueError("need n non-negative eigenvalues")
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    A = (q * lam) @ q.T
    return (A + A.T) / 2.0
