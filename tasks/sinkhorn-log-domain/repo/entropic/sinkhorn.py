"""Sinkhorn distances (Cuturi, "Sinkhorn Distances: Lightspeed Computation of
Optimal Transport", NeurIPS 2013), with a log-domain solver.

Matrices are lists of rows (lists of floats); histograms are lists of floats.
"""

import math

from entropic.numerics import logsumexp, safe_log
from entropic.validation import as_cost_matrix, as_histogram, check_iterations, check_reg, check_same_mass


def gibbs_kernel(C, reg):
    """Gibbs kernel K = exp(-C / reg) of an n x m cost matrix (list of lists)."""
    reg = check_reg(reg)
    return [[math.exp(-c / reg) for c in row] for row in C]


def transport_cost(P, C):
    """<P, C> = sum_ij P_ij C_ij, the transport cost of plan P under cost C."""
    if len(P) != len(C) or any(len(p) != len(c) for p, c in zip(P, C)):
        raise ValueError("plan and cost matrix differ in shape")
    return math.fsum(P[i][j] * C[i][j] for i in range(len(P)) for j in range(len(P[i])))


# Still to write: marginal_error, sinkhorn_knopp, sinkhorn_log, sinkhorn_distance
# (see the instruction).
