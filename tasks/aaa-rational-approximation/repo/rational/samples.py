"""Sample sets for approximation experiments."""

import numpy as np


def linspace_grid(a, b, m):
    """m equispaced points from a to b (inclusive), ascending, float64."""
    return np.linspace(a, b, m)


def circle_points(m, radius=1.0, center=0.0):
    """m points center + radius * exp(2 pi i j / m), j = 0..m-1 (complex128)."""
    return center + radius * np.exp(2j * np.pi * np.arange(m) / m)
