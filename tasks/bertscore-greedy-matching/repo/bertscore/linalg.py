"""Array helpers (numpy)."""

import numpy as np


def as_matrix(x, name="embeddings"):
    """x as a 2-D float64 array with at least one row. Raises ValueError for
    another number of dimensions, no rows, no columns or non-finite values."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (tokens x dimensions), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite")
    return a


def l2_normalize(matrix):
    """Each row divided by its Euclidean norm (a new float64 array), so that
    dot products of rows are cosine similarities. Raises ValueError for a row
    of zeros."""
    a = np.asarray(matrix, dtype=np.float64)
    norms = np.linalg.norm(a, axis=-1, keepdims=True)
    if np.any(norms == 0.0):
        raise ValueError("cannot normalise a zero vector")
    return a / norms
