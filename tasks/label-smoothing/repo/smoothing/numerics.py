"""Numeric helpers for classifier outputs."""

import math


def log_softmax(row):
    """log(softmax(row)) of a non-empty list of finite floats, computed in the
    log domain (no overflow for large logits)."""
    m = max(row)
    log_total = math.log(math.fsum(math.exp(z - m) for z in row))
    # (z - m) - log_total, not z - (m + log_total): keeps the precision of
    # log-probabilities close to zero when the logits are large.
    return [(z - m) - log_total for z in row]


def mean(values):
    """Arithmetic mean with an exactly rounded sum; ValueError when empty."""
    values = list(values)
    if not values:
        raise ValueError("mean of an empty sequence")
    return math.fsum(values) / len(values)


def check_epsilon(epsilon):
    """Raise ValueError unless epsilon is a number in [0, 1] (bools refused)."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be a number in [0, 1], got {epsilon!r}")


def check_label(label, num_classes):
    """Raise ValueError unless num_classes is an int >= 2 and label an int in
    [0, num_classes) (bools refused)."""
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 2:
        raise ValueError(f"num_classes must be an int >= 2, got {num_classes!r}")
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < num_classes:
        raise ValueError(f"label {label!r} is not a class in [0, {num_classes})")


def check_row(row):
    """Raise ValueError unless row is a list of at least two finite numbers."""
    if len(row) < 2:
        raise ValueError("a row of logits needs at least two classes")
    for v in row:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"logit {v!r} is not a finite number")
