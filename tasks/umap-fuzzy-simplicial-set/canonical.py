"""The fuzzy simplicial set of UMAP (McInnes, Healy and Melville, "UMAP:
Uniform Manifold Approximation and Projection for Dimension Reduction", 2018),
Sec. 3.1 and Algorithms 2-3."""

import math

import numpy as np

from fuzzygraph.constants import MIN_K_DIST_SCALE, SMOOTH_K_TOLERANCE
from fuzzygraph.knn import exact_knn
from fuzzygraph.sparse import coo_to_dense


def _as_dists(knn_dists):
    d = np.asarray(knn_dists, dtype=np.float64)
    if d.ndim != 2 or d.shape[1] < 1:
        raise ValueError("knn_dists must be a 2-D array with at least one column")
    return d


def compute_rho(knn_dists, local_connectivity=1.0):
    """rho_i: the distance to the local_connectivity-th nearest neighbour at a positive distance."""
    d = _as_dists(knn_dists)
    if not local_connectivity >= 0.0:
        raise ValueError(f"local_connectivity must be >= 0, got {local_connectivity!r}")
    rho = np.zeros(d.shape[0], dtype=np.float64)
    index = int(math.floor(local_connectivity))
    interpolation = local_connectivity - index
    for i in range(d.shape[0]):
        # Eq. (rho): rho_i = min{ d(x_i, x_ij) : d(x_i, x_ij) > 0 }, generalised
        # to a fractional local connectivity by interpolating between the
        # index-th and (index+1)-th positive distances (the reference code).
        nz = d[i][d[i] > 0.0]
        if nz.shape[0] == 0:
            # No positive distance at all (every neighbour a duplicate): rho_i = 0.
            continue
        if nz.shape[0] >= local_connectivity:
            if index > 0:
                rho[i] = nz[index - 1]
                if interpolation > SMOOTH_K_TOLERANCE:
                    rho[i] += interpolation * (nz[index] - nz[index - 1])
            else:
                rho[i] = interpolation * nz[0]
        else:
            # Fewer positive distances than requested: use the largest one.
            rho[i] = np.max(nz)
    return rho


def smooth_knn_dist(knn_dists, k, n_iter=64, local_connectivity=1.0, bandwidth=1.0):
    """(sigmas, rhos): sigma_i solves sum_j exp(-max(0, d_ij - rho_i) / sigma_i) = log2(k) * bandwidth."""
    d = _as_dists(knn_dists)
    if not k > 1.0:
        raise ValueError(f"k must be > 1, got {k!r}")
    rho = compute_rho(d, local_connectivity)
    # Eq. (sigma): the target of the normalisation is log2(k).
    target = math.log2(k) * bandwidth
    sigma = np.zeros(d.shape[0], dtype=np.float64)
    mean_all = np.mean(d)
    for i in range(d.shape[0]):
        lo, hi, mid = 0.0, math.inf, 1.0
        # Binary search for sigma_i (Algorithm 3, SmoothKNNDist); the sum runs
        # over the neighbours j = 1..k-1, column 0 being the point itself.
        for _ in range(n_iter):
            psum = 0.0
            for j in range(1, d.shape[1]):
                gap = d[i, j] - rho[i]
                psum += math.exp(-(gap / mid)) if gap > 0 else 1.0
            if abs(psum - target) < SMOOTH_K_TOLERANCE:
                break
            if psum > target:
                hi = mid
                mid = (lo + hi) / 2.0
            else:
                lo = mid
                # No upper bound yet: double sigma.
                mid = mid * 2 if hi == math.inf else (lo + hi) / 2.0
        sigma[i] = mid
        # The paper leaves this out: the reference code keeps sigma_i above a
        # small fraction of the mean distance (of the row, or of all rows when
        # rho_i is 0) so that the memberships stay finite.
        if rho[i] > 0.0:
            floor_i = MIN_K_DIST_SCALE * np.mean(d[i])
        else:
            floor_i = MIN_K_DIST_SCALE * mean_all
        if sigma[i] < floor_i:
            sigma[i] = floor_i
    return sigma, rho


def membership_strengths(knn_indices, knn_dists, sigmas, rhos):
    """COO triplets (rows, cols, vals) of the local fuzzy simplicial sets."""
    idx = np.asarray(knn_indices)
    d = _as_dists(knn_dists)
    if idx.shape != d.shape:
        raise ValueError("knn_indices and knn_dists must have the same shape")
    n, k = d.shape
    rows = np.zeros(n * k, dtype=np.int64)
    cols = np.zeros(n * k, dtype=np.int64)
    vals = np.zeros(n * k, dtype=np.float64)
    for i in range(n):
        for j in range(k):
            # A missing neighbour (-1) leaves a (0, 0, 0.0) entry.
            if idx[i, j] == -1:
                continue
            if idx[i, j] == i:
                # No 1-simplex from a point to itself.
                val = 0.0
            elif d[i, j] - rhos[i] <= 0.0 or sigmas[i] == 0.0:
                # Within rho_i: full membership (the local connectivity constraint).
                val = 1.0
            else:
                # Eq. (w): w(x_i, x_ij) = exp(-(d(x_i, x_ij) - rho_i) / sigma_i).
                val = math.exp(-((d[i, j] - rhos[i]) / sigmas[i]))
            rows[i * k + j] = i
            cols[i * k + j] = idx[i, j]
            vals[i * k + j] = val
    return rows, cols, vals


def fuzzy_simplicial_set(knn_indices, knn_dists, set_op_mix_ratio=1.0, local_connectivity=1.0):
    """(graph, sigmas, rhos): the symmetric fuzzy graph B as a dense n x n array."""
    if not 0.0 <= set_op_mix_ratio <= 1.0:
        raise ValueError(f"set_op_mix_ratio must be in [0, 1], got {set_op_mix_ratio!r}")
    d = _as_dists(knn_dists)
    n, k = d.shape
    sigmas, rhos = smooth_knn_dist(d, float(k), local_connectivity=local_connectivity)
    rows, cols, vals = membership_strengths(knn_indices, d, sigmas, rhos)
    A = coo_to_dense(rows, cols, vals, n)
    # Sec. 3.1: combine the local fuzzy sets with the fuzzy union (probabilistic
    # t-conorm), B = A + A^T - A o A^T; set_op_mix_ratio interpolates towards
    # the fuzzy intersection A o A^T (reference code).
    prod = A * A.T
    graph = set_op_mix_ratio * (A + A.T - prod) + (1.0 - set_op_mix_ratio) * prod
    return graph, sigmas, rhos


def fuzzy_graph(X, n_neighbors, set_op_mix_ratio=1.0, local_connectivity=1.0):
    """The fuzzy graph of a data matrix X, with exact k-NN."""
    knn_indices, knn_dists = exact_knn(X, n_neighbors)
    return fuzzy_simplicial_set(knn_indices, knn_dists, set_op_mix_ratio, local_connectivity)
