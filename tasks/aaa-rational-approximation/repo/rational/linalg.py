"""Linear-algebra helpers (numpy)."""

import numpy as np


def smallest_right_singular_vector(A):
    """A unit vector v minimising ||A v||_2: the right singular vector of the
    smallest singular value of the p x q matrix A (a null vector when p < q).

    Computed from numpy's SVD (complete V, thin U when p >= q) as the
    conjugate of the last row of V^H, so the result (sign included) is
    deterministic for a given A."""
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[1] == 0:
        raise ValueError("A must be a 2-D array with at least one column")
    _, _, vh = np.linalg.svd(A, full_matrices=A.shape[0] < A.shape[1])
    return vh[-1].conj()
