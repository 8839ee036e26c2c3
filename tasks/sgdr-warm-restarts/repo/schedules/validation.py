"""Argument checks shared by the schedules. Each raises ``ValueError``."""

import math


def check_positive_int(name, x):
    """``x`` must be an ``int`` (not a bool) and at least 1."""
    if isinstance(x, bool) or not isinstance(x, int) or x < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {x!r}")


def check_epoch(epoch):
    """``epoch`` must be a finite real number >= 0 (it may be fractional)."""
    if isinstance(epoch, bool) or not isinstance(epoch, (int, float)) or not (math.isfinite(epoch) and epoch >= 0):
        raise ValueError(f"epoch must be a finite number >= 0, got {epoch!r}")


def check_learning_rates(eta_max, eta_min):
    """Both finite, ``0 <= eta_min <= eta_max``."""
    for name, v in (("eta_max", eta_max), ("eta_min", eta_min)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number, got {v!r}")
    if not 0.0 <= eta_min <= eta_max:
        raise ValueError(f"need 0 <= eta_min <= eta_max, got eta_min={eta_min!r}, eta_max={eta_max!r}")
