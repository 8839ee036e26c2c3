"""The AAA algorithm for rational approximation (Nakatsukasa, Sete and
Trefethen, "The AAA algorithm for rational approximation", SIAM Journal on
Scientific Computing 2018)."""

import numpy as np

from rational.linalg import smallest_right_singular_vector


def cauchy_loewner(Z, F, zj, fj):
    """Cauchy matrix C_ij = 1/(Z_i - z_j) and Loewner matrix A_ij = (F_i - f_j)/(Z_i - z_j)."""
    Z = np.asarray(Z)
    F = np.asarray(F)
    zj = np.asarray(zj)
    fj = np.asarray(fj)
    if Z.ndim != 1 or Z.shape != F.shape or zj.ndim != 1 or zj.shape != fj.shape:
        raise ValueError("Z, F and zj, fj must be pairs of 1-D arrays of equal length")
    # Eq. (3.3): C = [1/(Z_i - z_j)], the Cauchy matrix.
    C = 1.0 / np.subtract.outer(Z, zj)
    # Eq. (3.4)-(3.5): A = S_F C - C S_f, the Loewner matrix.
    A = F[:, None] * C - C * fj[None, :]
    return C, A


def barycentric_eval(z, zj, fj, wj):
    """r(z) = sum_j w_j f_j / (z - z_j) / sum_j w_j / (z - z_j), with r(z_j) = f_j."""
    z = np.asarray(z)
    zj = np.asarray(zj)
    fj = np.asarray(fj)
    wj = np.asarray(wj)
    if zj.ndim != 1 or zj.shape != fj.shape or zj.shape != wj.shape or zj.size == 0:
        raise ValueError("zj, fj and wj must be non-empty 1-D arrays of equal length")
    zv = z.ravel()
    # Eq. (2.1): the barycentric quotient n(z)/d(z).
    with np.errstate(divide="ignore", invalid="ignore"):
        Cz = 1.0 / np.subtract.outer(zv, zj)
        r = (Cz @ (wj * fj)) / (Cz @ wj)
    # At a support point the quotient is inf/inf; there r interpolates: r(z_j) = f_j.
    hit_rows, hit_cols = np.nonzero(np.subtract.outer(zv, zj) == 0)
    r[hit_rows] = fj[hit_cols]
    return r.reshape(z.shape)


def aaa(F, Z, tol=1e-13, mmax=100):
    """AAA approximation of F on the sample set Z: dict with zj, fj, wj, errvec."""
    Z = np.asarray(Z)
    if Z.ndim != 1 or Z.size == 0:
        raise ValueError("Z must be a non-empty 1-D array")
    # Fig. 4.1: F may be given as a function, evaluated on Z.
    F = np.asarray(F(Z) if callable(F) else F)
    if F.shape != Z.shape:
        raise ValueError("F and Z must have the same length")
    if not (np.all(np.isfinite(Z)) and np.all(np.isfinite(F))):
        raise ValueError("Z and F must be finite")
    if isinstance(mmax, bool) or not isinstance(mmax, (int, np.integer)) or mmax < 1:
        raise ValueError(f"mmax must be an integer >= 1, got {mmax!r}")
    if not tol >= 0:
        raise ValueError(f"tol must be >= 0, got {tol!r}")
    dtype = np.result_type(Z, F, 1.0)
    Z = Z.astype(dtype)
    F = F.astype(dtype)
    M = Z.size
    J = np.ones(M, dtype=bool)  # indices not (yet) support points
    support = []
    errvec = []
    # Fig. 4.1: R = mean(F) is the initial (constant) approximation.
    R = np.full(M, np.mean(F), dtype=dtype)
    scale = np.max(np.abs(F))
    wj = None
    for m in range(mmax):
        # Sec. 3, greedy step: the next support point is where the current
        # error |F - R| is largest (the first such index on a tie).
        j = int(np.argmax(np.abs(F - R)))
        support.append(j)
        J[j] = False
        zj = Z[support]
        fj = F[support]
        # Least-squares problem (3.6) on the points outside the support set:
        # minimise ||A w|| with ||w|| = 1, the smallest right singular vector.
        C, A = cauchy_loewner(Z[J], F[J], zj, fj)
        wj = smallest_right_singular_vector(A)
        # Eq. (2.1) at the sample points: R interpolates at the support points
        # and is the barycentric quotient n/d elsewhere.
        R = F.copy()
        R[J] = (C @ (wj * fj)) / (C @ wj)
        err = float(np.max(np.abs(F - R)))
        errvec.append(err)
        # Stop when the maximum error is at most tol times max |F| (relative).
        if err <= tol * scale:
            break
    return {"zj": Z[support], "fj": F[support], "wj": wj, "errvec": np.array(errvec, dtype=np.float64)}
