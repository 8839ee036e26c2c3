"""NaN-aware helpers for time series given as plain lists of floats.

A missing observation is a float NaN (``math.nan``); every other value must be
a finite real number."""

import math


def is_missing(x):
    """True for a missing observation (NaN)."""
    return isinstance(x, float) and math.isnan(x)


def check_series(values, name="series"):
    """A list of floats copied from ``values``; ValueError unless every item is
    a real number (bool is not) that is finite or NaN. An empty series is
    allowed."""
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{name}[{i}] is not a number: {v!r}")
        v = float(v)
        if math.isinf(v):
            raise ValueError(f"{name}[{i}] is infinite")
        out.append(v)
    return out


def observed_mask(values):
    """[True where the value is observed, False where it is missing]."""
    return [not is_missing(v) for v in values]


def count_observed(values):
    """How many values are not missing."""
    return sum(1 for v in values if not is_missing(v))


def nan_mean_abs(values):
    """Mean of |x| over the observed values (missing ones are skipped, in the
    sum and in the count); NaN when no value is observed. Exactly rounded sum
    (math.fsum)."""
    observed = [abs(v) for v in values if not is_missing(v)]
    if not observed:
        return math.nan
    return math.fsum(observed) / len(observed)
