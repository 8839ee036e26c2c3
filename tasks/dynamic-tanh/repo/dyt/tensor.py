"""Helpers for tensors stored as nested Python lists of floats."""

import math


def shape_of(x):
    """Shape of a rectangular nested list, e.g. ``(2, 3)`` for two rows of three.

    A bare number has shape ``()``. Raises ``ValueError`` for a ragged list,
    an empty list, or a leaf that is not a real number (bools are refused).
    """
    if isinstance(x, (list, tuple)):
        if len(x) == 0:
            raise ValueError("empty lists have no shape")
        inner = [shape_of(v) for v in x]
        if any(s != inner[0] for s in inner):
            raise ValueError("ragged nested list")
        return (len(x),) + inner[0]
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"not a number: {x!r}")
    return ()


def map_vectors(x, fn):
    """Apply ``fn`` to every innermost list (a vector along the last axis) and
    return a new nested list of the results, in the same nesting."""
    if isinstance(x[0], (list, tuple)):
        return [map_vectors(v, fn) for v in x]
    return fn(list(x))


def map_at_depth(x, depth, fn):
    """Apply ``fn(index, sub)`` to every sub-list ``sub`` found ``depth``
    levels down, where ``index`` is the sub-list's position in its parent
    list. ``depth`` 1 means the items of ``x`` itself. Returns a new nested
    list."""
    if depth == 1:
        return [fn(i, sub) for i, sub in enumerate(x)]
    return [map_at_depth(v, depth - 1, fn) for v in x]


def map_scalars(x, fn):
    """Apply ``fn`` to every number of a nested list; returns a new nested list."""
    if isinstance(x, (list, tuple)):
        return [map_scalars(v, fn) for v in x]
    return fn(x)


def tanh(x):
    """Hyperbolic tangent through ``math.expm1`` (the classic fdlibm scheme).

    Agrees with ``math.tanh`` to the last bit or two, and gives the same bits
    on every platform, which keeps recorded results reproducible."""
    if x != x:
        return x
    a = abs(x)
    if a > 22.0:
        t = 1.0
    elif a >= 1.0:
        t = 1.0 - 2.0 / (math.expm1(2.0 * a) + 2.0)
    else:
        e = math.expm1(-2.0 * a)
        t = -e / (e + 2.0)
    return t if x >= 0 else -t


def check_positive_int(name, value):
    """Raise ``ValueError`` unless ``value`` is an int >= 1 (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def check_finite(name, value):
    """Raise ``ValueError`` unless ``value`` is a finite real number (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
