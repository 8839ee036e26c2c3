"""Input checks shared by the transport solvers."""

import math


def as_histogram(name, a):
    """``a`` as a list of floats: non-empty, finite, non-negative, positive sum.

    Raises ValueError naming ``name`` otherwise."""
    try:
        out = [float(x) for x in a]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of numbers") from None
    if not out:
        raise ValueError(f"{name} must not be empty")
    if any(not math.isfinite(x) or x < 0.0 for x in out):
        raise ValueError(f"{name} must hold finite non-negative numbers")
    if not math.fsum(out) > 0.0:
        raise ValueError(f"{name} must have a positive total mass")
    return out


def check_same_mass(a, b, rel=1e-9):
    """Raise ValueError unless the two histograms have the same total mass
    (within a relative ``rel``)."""
    sa, sb = math.fsum(a), math.fsum(b)
    if abs(sa - sb) > rel * max(sa, sb):
        raise ValueError(f"histograms differ in total mass: {sa!r} vs {sb!r}")


def as_cost_matrix(C, n, m):
    """``C`` as a list of n lists of m finite floats; ValueError otherwise."""
    rows = [list(map(float, row)) for row in C]
    if len(rows) != n or any(len(row) != m for row in rows):
        raise ValueError(f"cost matrix must be {n} x {m}")
    if any(not math.isfinite(x) for row in rows for x in row):
        raise ValueError("cost matrix entries must be finite")
    return rows


def check_reg(reg):
    """Raise ValueError unless ``reg`` is a positive finite number (not a bool)."""
    if isinstance(reg, bool) or not isinstance(reg, (int, float)) or not (math.isfinite(reg) and reg > 0.0):
        raise ValueError(f"reg must be a positive finite number, got {reg!r}")
    return float(reg)


def check_iterations(max_iter, tol):
    """Raise ValueError unless max_iter is an int >= 1 and tol a number >= 0."""
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0.0:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}")
