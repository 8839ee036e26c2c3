"""Constants of the smooth k-NN distance search (as in the UMAP reference
implementation)."""

# The binary search for sigma_i stops once |sum_j exp(...) - log2(k)| is below this.
SMOOTH_K_TOLERANCE = 1e-5

# sigma_i is never smaller than this fraction of the mean neighbour distance.
MIN_K_DIST_SCALE = 1e-3
