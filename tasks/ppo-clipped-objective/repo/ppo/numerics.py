"""Small numeric helpers on plain lists of floats."""

import math


def clamp(x, lo, hi):
    """x limited to the closed interval [lo, hi] (lo <= hi)."""
    return lo if x < lo else hi if x > hi else x


def mean(xs):
    """Arithmetic mean with an exactly rounded sum (math.fsum). Raises ValueError for an empty sequence."""
    xs = list(xs)
    if not xs:
        raise ValueError("mean of an empty sequence")
    return math.fsum(xs) / len(xs)


def check_same_length(**seqs):
    """Raise ValueError unless every named sequence has the same, non-zero length."""
    lengths = {name: len(s) for name, s in seqs.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"sequences differ in length: {lengths}")
    if next(iter(lengths.values())) == 0:
        raise ValueError("empty batch")


def check_clip_range(name, eps):
    """Raise ValueError unless eps is a number with 0 < eps < 1."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0.0 < eps < 1.0:
        raise ValueError(f"{name} must be a number in (0, 1), got {eps!r}")
