"""A toy forecaster to put between normalisation and denormalisation."""

import numpy as np


class LinearForecaster:
    """Maps each channel's input window [length] to a horizon [horizon] with one shared linear layer."""

    def __init__(self, weight, bias):
        self.weight = np.asarray(weight, dtype=np.float64)  # [horizon, length]
        self.bias = np.asarray(bias, dtype=np.float64)      # [horizon]

    def __call__(self, x):
        """x: [batch, length, channels] -> [batch, horizon, channels]."""
        z = np.swapaxes(np.asarray(x, dtype=np.float64), 1, 2) @ self.weight.T + self.bias
        return np.swapaxes(z, 1, 2)
