"""Input checks shared by the normalisation layers."""

import math

import numpy as np


def as_activations(x):
    """``x`` as a float64 array with at least one axis, a non-empty last axis
    and only finite entries; raises ValueError otherwise."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim < 1 or a.shape[-1] < 1:
        raise ValueError(f"expected activations with a non-empty last axis, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("activations must be finite")
    return a


def as_vector(name, v, d):
    """``v`` as a float64 vector of length ``d``; raises ValueError otherwise."""
    a = np.asarray(v, dtype=np.float64)
    if a.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},), got {a.shape}")
    return a


def check_fraction(p):
    """Raise ValueError unless ``p`` is None or a number in (0, 1]."""
    if p is None:
        return
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0.0 < p <= 1.0):
        raise ValueError(f"p must be None or a number in (0, 1], got {p!r}")


def check_eps(eps):
    """Raise ValueError unless ``eps`` is a finite number >= 0."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
