"""Input checks shared by the conformal procedures."""

import math


def check_probabilities(probs):
    """Raise ValueError unless probs is a non-empty list of non-negative numbers summing to 1 (within 1e-6)."""
    if len(probs) == 0:
        raise ValueError("empty probability vector")
    if any(not p >= 0.0 for p in probs):
        raise ValueError("probabilities must be non-negative")
    if abs(math.fsum(probs) - 1.0) > 1e-6:
        raise ValueError(f"probabilities sum to {math.fsum(probs)!r}, not 1")


def check_alpha(alpha):
    """Raise ValueError unless alpha is a number with 0 < alpha < 1."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")


def check_label(label, num_classes):
    """Raise ValueError unless label is an int class index in [0, num_classes)."""
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < num_classes:
        raise ValueError(f"label {label!r} is not a class index below {num_classes}")
