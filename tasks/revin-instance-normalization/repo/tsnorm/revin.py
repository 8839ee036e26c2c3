"""Reversible instance normalisation, RevIN (Kim et al., ICLR 2022)."""

import numpy as np

from tsnorm.arrays import as_series_batch, channel_vector


def instance_statistics(x, eps=1e-5):
    """Per-instance, per-channel mean and standard deviation over time.

    x: array [batch, length, channels]. Returns (mean, stdev), each [batch, 1, channels], where
    stdev = sqrt(population variance + eps)."""
    raise NotImplementedError


class RevIN:
    """Normalises each input window by its own statistics and restores them on the model's output."""

    def __init__(self, num_features, eps=1e-5, affine=True):
        """num_features: channels C; eps: added to the variance; affine: learnable gamma (ones) and beta (zeros)."""
        raise NotImplementedError

    def normalize(self, x):
        """Store the statistics of x [batch, length, C] and return the normalised (and affine) x."""
        raise NotImplementedError

    def denormalize(self, y):
        """Undo the affine map and restore the stored statistics on y [batch, horizon, C]."""
        raise NotImplementedError
