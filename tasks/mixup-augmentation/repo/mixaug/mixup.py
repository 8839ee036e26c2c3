"""mixup (Zhang, Cisse, Dauphin & Lopez-Paz, "mixup: Beyond Empirical Risk
Minimization", ICLR 2018)."""

import numpy as np

from mixaug.nn import log_softmax, soft_target_gradient
from mixaug.rng import draw_beta, draw_permutation


def one_hot(labels, num_classes):
    """One-hot targets: a float64 array of shape (len(labels), num_classes) with a single 1 per row.

    Raises ValueError for labels that are not integers in [0, num_classes)."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError("labels must be a one-dimensional array of integers")
    if num_classes < 1 or labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(f"labels must lie in [0, {num_classes})")
    out = np.zeros((labels.size, num_classes))
    out[np.arange(labels.size), labels] = 1.0
    return out
