"""Sinkhorn distances (Cuturi, "Sinkhorn Distances: Lightspeed Computation of
Optimal Transport", NeurIPS 2013), with a log-domain solver."""

import math

from entropic.numerics import logsumexp, safe_log
from entropic.validation import as_cost_matrix, as_histogram, check_iterations, check_reg, check_same_mass


def gibbs_kernel(C, reg):
    """Gibbs kernel K = exp(-C / reg) of an n x m cost matrix (list of lists)."""
    reg = check_reg(reg)
    # Sec. 4: K = e^{-lambda M}, with lambda = 1 / reg.
    return [[math.exp(-c / reg) for c in row] for row in C]


def transport_cost(P, C):
    """<P, C> = sum_ij P_ij C_ij, the transport cost of plan P under cost C."""
    if len(P) != len(C) or any(len(p) != len(c) for p, c in zip(P, C)):
        raise ValueError("plan and cost matrix differ in shape")
    return math.fsum(P[i][j] * C[i][j] for i in range(len(P)) for j in range(len(P[i])))


def _inputs(a, b, C, reg, max_iter, tol):
    a = as_histogram("a", a)
    b = as_histogram("b", b)
    check_same_mass(a, b)
    C = as_cost_matrix(C, len(a), len(b))
    reg = check_reg(reg)
    check_iterations(max_iter, tol)
    return a, b, C, reg


def marginal_error(P, a, b):
    """L1 violation of both marginal constraints of a plan P (n x m)."""
    if len(P) != len(a) or any(len(row) != len(b) for row in P):
        raise ValueError("plan shape does not match the histograms")
    # U(r, c) = {P >= 0 : P 1 = r, P^T 1 = c} (Sec. 2); the distance to it is
    # measured by the L1 norms of the row-sum and column-sum deviations.
    rows = math.fsum(abs(math.fsum(row) - ai) for row, ai in zip(P, a))
    cols = math.fsum(abs(math.fsum(P[i][j] for i in range(len(a))) - bj) for j, bj in enumerate(b))
    return rows + cols


def sinkhorn_knopp(a, b, C, reg, max_iter=1000, tol=1e-9):
    """Sinkhorn-Knopp matrix scaling in the plain domain (Algorithm 1)."""
    a, b, C, reg = _inputs(a, b, C, reg, max_iter, tol)
    n, m = len(a), len(b)
    K = gibbs_kernel(C, reg)
    # Lemma 2: P^lambda = diag(u) K diag(v); start from u = 1.
    u = [1.0] * n
    for it in range(1, max_iter + 1):
        # Algorithm 1, one Sinkhorn iteration: first match the column sums,
        # v = c ./ (K^T u), then the row sums, u = r ./ (K v).
        ktu = [math.fsum(K[i][j] * u[i] for i in range(n)) for j in range(m)]
        if any(x == 0.0 for x in ktu):
            raise ValueError("the Gibbs kernel underflowed: use the log-domain solver")
        v = [bj / x for bj, x in zip(b, ktu)]
        kv = [math.fsum(K[i][j] * v[j] for j in range(m)) for i in range(n)]
        if any(x == 0.0 for x in kv):
            raise ValueError("the Gibbs kernel underflowed: use the log-domain solver")
        u = [ai / x for ai, x in zip(a, kv)]
        P = [[u[i] * K[i][j] * v[j] for j in range(m)] for i in range(n)]
        # Stop on the marginal error of the current plan (checked every iteration).
        err = marginal_error(P, a, b)
        if err <= tol:
            break
    return {"plan": P, "u": u, "v": v, "n_iter": it, "error": err, "converged": err <= tol}


def sinkhorn_log(a, b, C, reg, max_iter=1000, tol=1e-9):
    """Sinkhorn iterations on the log scalings log u, log v (log-sum-exp updates)."""
    a, b, C, reg = _inputs(a, b, C, reg, max_iter, tol)
    n, m = len(a), len(b)
    # log K_ij = -C_ij / reg; the kernel itself is never formed, so a small reg
    # cannot underflow it (the paper leaves this out: it works with K directly).
    logK = [[-c / reg for c in row] for row in C]
    # Zero mass gives log 0 = -inf: that row (column) of the plan is zero.
    log_a = [safe_log(x) for x in a]
    log_b = [safe_log(x) for x in b]
    log_u = [0.0] * n
    for it in range(1, max_iter + 1):
        # log of v = b ./ (K^T u): log v_j = log b_j - LSE_i(log K_ij + log u_i).
        log_v = [log_b[j] - logsumexp(logK[i][j] + log_u[i] for i in range(n)) for j in range(m)]
        # log of u = a ./ (K v): log u_i = log a_i - LSE_j(log K_ij + log v_j).
        log_u = [log_a[i] - logsumexp(logK[i][j] + log_v[j] for j in range(m)) for i in range(n)]
        # Lemma 2 in logs: P_ij = exp(log u_i + log K_ij + log v_j).
        P = [[math.exp(log_u[i] + logK[i][j] + log_v[j]) for j in range(m)] for i in range(n)]
        err = marginal_error(P, a, b)
        if err <= tol:
            break
    return {"plan": P, "log_u": log_u, "log_v": log_v, "n_iter": it, "error": err, "converged": err <= tol}


def sinkhorn_distance(a, b, C, reg, max_iter=1000, tol=1e-9):
    """Dual-Sinkhorn divergence d_M^lambda(r, c) = <P^lambda, M> (log-domain solver)."""
    # Definition 1 / Eq. (2): the cost of the entropic plan, without the entropy term.
    result = sinkhorn_log(a, b, C, reg, max_iter, tol)
    return transport_cost(result["plan"], C)
