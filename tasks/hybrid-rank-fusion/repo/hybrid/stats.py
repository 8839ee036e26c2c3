"""Summary statistics on plain lists of floats."""

import math


def min_max(values):
    """(minimum, maximum) of a non-empty sequence."""
    values = list(values)
    if not values:
        raise ValueError("min_max of an empty sequence")
    return min(values), max(values)


def mean_std(values):
    """Mean and population standard deviation (divide by n, not n - 1) of a
    non-empty sequence; sums are exactly rounded (math.fsum)."""
    values = list(values)
    n = len(values)
    if n == 0:
        raise ValueError("mean_std of an empty sequence")
    mu = math.fsum(values) / n
    return mu, math.sqrt(math.fsum((v - mu) ** 2 for v in values) / n)
