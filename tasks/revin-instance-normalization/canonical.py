"""Reversible instance normalisation, RevIN (Kim et al., ICLR 2022)."""

import numpy as np

from tsnorm.arrays import as_series_batch, channel_vector


def _check_eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps >= 0.0:
        raise ValueError(f"eps must be a non-negative number, got {eps!r}")


def instance_statistics(x, eps=1e-5):
    """Per-instance, per-channel mean and standard deviation over time.

    x: array [batch, length, channels]. Returns (mean, stdev), each [batch, 1, channels], where
    stdev = sqrt(population variance + eps)."""
    x = as_series_batch(x)
    _check_eps(eps)
    # Eq. (1): the mean and variance of every instance x^(i), per variable k, over the T_x time steps.
    mean = x.mean(axis=1, keepdims=True)
    # The variance divides by T_x (the population variance, not n - 1), and eps is added to the
    # variance inside the square root, as in Eq. (2)'s sqrt(Var + eps).
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return mean, np.sqrt(var + eps)


class RevIN:
    """Normalises each input window by its own statistics and restores them on the model's output."""

    def __init__(self, num_features, eps=1e-5, affine=True):
        """num_features: channels C; eps: added to the variance; affine: learnable gamma (ones) and beta (zeros)."""
        if isinstance(num_features, bool) or not isinstance(num_features, int) or num_features < 1:
            raise ValueError(f"num_features must be a positive int, got {num_features!r}")
        _check_eps(eps)
        self.num_features = num_features
        self.eps = eps
        self.affine = affine
        # Sec. 3: the learnable affine parameters gamma, beta in R^K start as the identity map.
        self.affine_weight = np.ones(num_features) if affine else None
        self.affine_bias = np.zeros(num_features) if affine else None
        self.mean = None
        self.stdev = None

    def normalize(self, x):
        """Store the statistics of x [batch, length, C] and return the normalised (and affine) x."""
        x = as_series_batch(x, self.num_features)
        # The statistics are kept for the symmetric denormalisation of the output (Sec. 3).
        self.mean, self.stdev = instance_statistics(x, self.eps)
        # Eq. (2): x_hat = gamma * (x - E[x]) / sqrt(Var[x] + eps) + beta.
        out = (x - self.mean) / self.stdev
        if self.affine:
            gamma = channel_vector(self.affine_weight, self.num_features, "affine_weight")
            beta = channel_vector(self.affine_bias, self.num_features, "affine_bias")
            out = out * gamma + beta
        return out

    def denormalize(self, y):
        """Undo the affine map and restore the stored statistics on y [batch, horizon, C]."""
        if self.mean is None:
            raise RuntimeError("denormalize called before normalize")
        y = as_series_batch(y, self.num_features)
        if y.shape[0] != self.mean.shape[0]:
            raise ValueError(f"batch of {y.shape[0]} does not match the stored statistics of {self.mean.shape[0]}")
        if self.affine:
            gamma = channel_vector(self.affine_weight, self.num_features, "affine_weight")
            beta = channel_vector(self.affine_bias, self.num_features, "affine_bias")
            # Eq. (3) inverts Eq. (2). The paper leaves this out: the official code divides by
            # gamma + eps * eps, so a gamma that reaches zero does not divide by zero.
            y = (y - beta) / (gamma + self.eps * self.eps)
        # Eq. (3): y_hat = sqrt(Var[x] + eps) * (y_tilde - beta) / gamma + E[x], with the input's statistics.
        return y * self.stdev + self.mean
