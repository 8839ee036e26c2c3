"""Batches of multivariate time series as numpy arrays."""

import numpy as np


def as_batch(x):
    """x as a float64 array of shape [batch, length, channels].

    Raises ValueError unless x has exactly three dimensions and a length of at least one.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 3:
        raise ValueError(f"expected an array [batch, length, channels], got shape {x.shape}")
    if x.shape[1] < 1:
        raise ValueError("series of length zero")
    return x


def sliding_windows(series, input_length, horizon):
    """Input windows and targets cut from one series [time, channels] with stride one.

    Returns (inputs [n, input_length, channels], targets [n, horizon, channels]).
    """
    series = np.asarray(series, dtype=np.float64)
    n = series.shape[0] - input_length - horizon + 1
    if n < 1:
        raise ValueError("series too short for one window")
    inputs = np.stack([series[i:i + input_length] for i in range(n)])
    targets = np.stack([series[i + input_length:i + input_length + horizon] for i in range(n)])
    return inputs, targets
