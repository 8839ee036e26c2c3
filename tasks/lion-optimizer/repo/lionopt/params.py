"""Optimizer state and argument checks."""

import math


class LionState:
    """State of a Lion optimizer for a parameter vector of length n.

    Attributes:
        step: number of updates taken so far (0 before the first update).
        m: momentum, an exponential moving average of past gradients; list of n floats, initially zeros.
    """

    def __init__(self, n):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"parameter count must be a positive integer, got {n!r}")
        self.step = 0
        self.m = [0.0] * n

    def __len__(self):
        return len(self.m)


def check_same_length(**vectors):
    """Raise ``ValueError`` unless all keyword vectors have the same length."""
    lengths = {name: len(vec) for name, vec in vectors.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} {n}" for k, n in lengths.items())
        raise ValueError(f"vectors differ in length: {detail}")


def check_beta(name, beta):
    """Raise ``ValueError`` unless ``beta`` is a number in [0, 1)."""
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not (0.0 <= beta < 1.0):
        raise ValueError(f"{name} must be in [0, 1), got {beta!r}")


def check_non_negative(name, x):
    """Raise ``ValueError`` unless ``x`` is a finite number >= 0."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not (x >= 0.0 and math.isfinite(x)):
        raise ValueError(f"{name} must be a finite number >= 0, got {x!r}")
