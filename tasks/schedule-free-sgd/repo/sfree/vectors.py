"""Element-wise helpers for parameter vectors stored as lists of floats."""

import math


def check_same_length(**vectors):
    """Raise ``ValueError`` unless all keyword vectors have the same length."""
    lengths = {name: len(vec) for name, vec in vectors.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} {n}" for k, n in lengths.items())
        raise ValueError(f"vectors differ in length: {detail}")


def check_unit_interval(name, x):
    """Raise ``ValueError`` unless ``x`` is a real number in the closed interval [0, 1]."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not (0.0 <= x <= 1.0):
        raise ValueError(f"{name} must be a number in [0, 1], got {x!r}")


def lerp(a, b, w):
    """The point ``(1 - w) * a + w * b``, element by element, as a new list.

    ``w = 0`` gives a copy of ``a`` and ``w = 1`` a copy of ``b``."""
    check_same_length(a=a, b=b)
    return [(1.0 - w) * ai + w * bi for ai, bi in zip(a, b)]


def axpy(alpha, x, y):
    """``y + alpha * x``, element by element, as a new list."""
    check_same_length(x=x, y=y)
    return [yi + alpha * xi for xi, yi in zip(x, y)]


def norm(x):
    """Euclidean norm of a vector."""
    return math.sqrt(math.fsum(xi * xi for xi in x))
