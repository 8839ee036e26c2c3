"""Argument checks shared by the sketches. Each raises ``ValueError`` naming what was wrong."""

import math


def _is_real(x):
    return not isinstance(x, bool) and isinstance(x, (int, float))


def check_relative_accuracy(alpha):
    """Raise ``ValueError`` unless ``alpha`` is a real number with 0 < alpha < 1."""
    if not _is_real(alpha) or not 0.0 < alpha < 1.0:
        raise ValueError(f"relative accuracy must be a number strictly between 0 and 1, got {alpha!r}")


def check_gamma(gamma):
    """Raise ``ValueError`` unless ``gamma`` is a finite real number above 1."""
    if not _is_real(gamma) or not 1.0 < gamma < math.inf:
        raise ValueError(f"gamma must be a finite number above 1, got {gamma!r}")


def check_value(x):
    """Raise ``ValueError`` unless ``x`` is a finite real number (not a bool)."""
    if not _is_real(x) or not math.isfinite(x):
        raise ValueError(f"a sketch takes finite real numbers, got {x!r}")


def check_positive_value(x):
    """Raise ``ValueError`` unless ``x`` is a finite real number above zero."""
    check_value(x)
    if x <= 0:
        raise ValueError(f"the value must be above zero, got {x!r}")


def check_weight(weight):
    """Raise ``ValueError`` unless ``weight`` is a finite real number above zero."""
    if not _is_real(weight) or not 0.0 < weight < math.inf:
        raise ValueError(f"a weight must be a finite number above zero, got {weight!r}")


def check_quantile(q):
    """Raise ``ValueError`` unless ``q`` is a real number in [0, 1]."""
    if not _is_real(q) or not 0.0 <= q <= 1.0:
        raise ValueError(f"a quantile must be a number in [0, 1], got {q!r}")


def check_max_buckets(max_buckets):
    """Raise ``ValueError`` unless ``max_buckets`` is None (no limit) or an int of at least 1."""
    if max_buckets is None:
        return
    if isinstance(max_buckets, bool) or not isinstance(max_buckets, int) or max_buckets < 1:
        raise ValueError(f"max_buckets must be None or a positive int, got {max_buckets!r}")
