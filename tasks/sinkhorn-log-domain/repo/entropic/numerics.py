"""Log-domain numerics on plain lists of floats."""

import math

NEG_INF = float("-inf")


def safe_log(x):
    """Natural logarithm that maps 0 to -inf (instead of raising).

    Raises ValueError for a negative number or NaN."""
    if x == 0.0:
        return NEG_INF
    if not x > 0.0:
        raise ValueError(f"log of a negative number or NaN: {x!r}")
    return math.log(x)


def logsumexp(values):
    """log(sum(exp(v))) without overflow or underflow (shifts by the maximum).

    Entries equal to -inf contribute nothing; the result is -inf when every
    entry is -inf. Raises ValueError for an empty sequence."""
    values = list(values)
    if not values:
        raise ValueError("logsumexp of an empty sequence")
    m = max(values)
    if m == NEG_INF:
        return NEG_INF
    return m + math.log(math.fsum(math.exp(v - m) for v in values))
