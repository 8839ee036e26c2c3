"""Layers on numpy arrays."""

import numpy as np


def linear(x, weight, bias):
    """A fully connected layer on the last axis: x @ weight.T + bias.

    x: [..., in_features]; weight: [out_features, in_features]; bias: [out_features].
    Returns [..., out_features]. Raises ValueError when the shapes do not fit.
    """
    x = np.asarray(x, dtype=np.float64)
    weight = np.asarray(weight, dtype=np.float64)
    bias = np.asarray(bias, dtype=np.float64)
    if weight.ndim != 2 or bias.shape != (weight.shape[0],) or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"linear: input {x.shape}, weight {weight.shape}, bias {bias.shape} do not fit")
    return x @ weight.T + bias
