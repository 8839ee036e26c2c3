"""Seeded random draws. Every random number of the package goes through these
helpers, so that a run is reproduced exactly from its seed.

The generator is numpy's ``RandomState`` (its streams are frozen across numpy
versions)."""

import numpy as np


def make_rng(seed):
    """A new generator seeded with the integer ``seed``."""
    return np.random.RandomState(seed)


def draw_beta(rng, alpha):
    """One draw from the symmetric Beta(alpha, alpha) distribution, as a Python float.

    ``alpha`` must be positive (numpy raises ``ValueError`` otherwise)."""
    return float(rng.beta(alpha, alpha))


def draw_permutation(rng, n):
    """A random permutation of 0, 1, ..., n - 1, as an int64 array."""
    return rng.permutation(n)
