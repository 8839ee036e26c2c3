"""Exact k-nearest neighbours under the Euclidean distance (numpy)."""

import numpy as np


def exact_knn(X, n_neighbors):
    """The n_neighbors nearest neighbours of every row of X, itself included.

    Returns ``(indices, dists)``: int64 and float64 arrays of shape
    (n, n_neighbors). Row i starts with i itself at distance 0; the others
    follow by increasing distance, ties broken by the smaller index.
    Raises ValueError unless 1 <= n_neighbors <= n."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("X must be a 2-D array")
    n = X.shape[0]
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)) or not 1 <= n_neighbors <= n:
        raise ValueError(f"n_neighbors must be an integer in [1, {n}], got {n_neighbors!r}")
    diff = X[:, None, :] - X[None, :, :]
    d2 = np.sum(diff * diff, axis=2)
    np.fill_diagonal(d2, -1.0)  # self first, whatever the duplicates
    order = np.argsort(d2, axis=1, kind="stable")[:, :n_neighbors]
    dists = np.sqrt(np.maximum(np.take_along_axis(d2, order, axis=1), 0.0))
    return order.astype(np.int64), dists
