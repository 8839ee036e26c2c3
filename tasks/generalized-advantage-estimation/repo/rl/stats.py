"""Summary statistics on plain lists of floats."""

import math


def mean_std(xs):
    """Mean and population standard deviation (divide by n, not n - 1) of a non-empty list.

    Sums are exactly rounded (``math.fsum``).
    """
    n = len(xs)
    if n == 0:
        raise ValueError("mean_std of an empty sequence")
    mu = math.fsum(xs) / n
    var = math.fsum((x - mu) ** 2 for x in xs) / n
    return mu, math.sqrt(var)
