"""Array checks for batches of multivariate series."""

import numpy as np


def as_series_batch(x, num_features=None):
    """x as a float64 array [batch, length, channels].

    Raises ValueError unless x is 3-D with a non-zero length and, when num_features is given, exactly
    num_features channels.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 3 or x.shape[1] == 0:
        raise ValueError(f"expected [batch, length, channels], got shape {x.shape}")
    if num_features is not None and x.shape[2] != num_features:
        raise ValueError(f"expected {num_features} channels, got {x.shape[2]}")
    return x


def channel_vector(value, num_features, name):
    """A scalar or a length-num_features sequence as a float64 vector of shape [num_features]."""
    v = np.asarray(value, dtype=np.float64)
    if v.ndim == 0:
        return np.full(num_features, float(v))
    if v.shape != (num_features,):
        raise ValueError(f"{name} must be a scalar or have shape ({num_features},), got {v.shape}")
    return v.copy()
