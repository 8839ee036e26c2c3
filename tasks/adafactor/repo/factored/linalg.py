"""Small numpy helpers."""

import numpy as np


def rms(x):
    """Root mean square of all entries of an array: sqrt(mean(x ** 2)), as a Python float."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        raise ValueError("rms of an empty array")
    return float(np.sqrt(np.mean(np.square(x))))


def as_parameter(x, name="x"):
    """``x`` as a new float64 array of one or two dimensions, not empty; ValueError otherwise."""
    arr = np.array(x, dtype=np.float64)
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty vector or matrix, got shape {arr.shape}")
    return arr
