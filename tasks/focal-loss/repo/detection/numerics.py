"""Numerically safe building blocks, in plain Python."""

import math


def log_sigmoid(x):
    """log(sigmoid(x)) for a finite float, without overflow and without log(0)."""
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def log_softmax(row):
    """log(softmax(row)) of a list of finite floats, in the log domain."""
    m = max(row)
    log_total = math.log(math.fsum(math.exp(z - m) for z in row))
    # (z - m) - log_total, not z - (m + log_total): keeps the precision of
    # log-probabilities close to zero when the logits are large.
    return [(z - m) - log_total for z in row]


def check_finite_list(name, values):
    """Raise ValueError unless every entry is a finite number (bools refused)."""
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{name}[{i}] = {v!r} is not a finite number")


def check_gamma(gamma):
    """Raise ValueError unless gamma is a finite number >= 0."""
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not (math.isfinite(gamma) and gamma >= 0):
        raise ValueError(f"gamma must be a finite number >= 0, got {gamma!r}")


def check_alpha(alpha):
    """Raise ValueError unless alpha is None or a number in [0, 1]."""
    if alpha is None:
        return
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be None or a number in [0, 1], got {alpha!r}")
