"""Building dense matrices from coordinate (COO) triplets."""

import numpy as np


def coo_to_dense(rows, cols, vals, n):
    """The n x n float64 matrix with vals added at (rows, cols); entries that
    appear more than once are summed (as scipy's coo_matrix does)."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    vals = np.asarray(vals, dtype=np.float64)
    if not (rows.shape == cols.shape == vals.shape) or rows.ndim != 1:
        raise ValueError("rows, cols and vals must be 1-D arrays of the same length")
    out = np.zeros((n, n), dtype=np.float64)
    np.add.at(out, (rows, cols), vals)
    return out
