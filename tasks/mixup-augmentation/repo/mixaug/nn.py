"""A linear softmax classifier on numpy arrays."""

import numpy as np


def log_softmax(logits):
    """Row-wise log-softmax of a (batch, classes) array, computed stably (shifted by the row maximum)."""
    z = np.asarray(logits, dtype=np.float64)
    shifted = z - z.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def softmax(logits):
    """Row-wise softmax of a (batch, classes) array."""
    return np.exp(log_softmax(logits))


def linear_logits(W, x):
    """Logits x @ W of a linear classifier: x is (batch, features), W is (features, classes)."""
    return np.asarray(x, dtype=np.float64) @ np.asarray(W, dtype=np.float64)


def soft_target_gradient(W, x, targets):
    """Gradient with respect to W of the mean soft-target cross-entropy of the linear
    classifier on (x, targets): x.T @ (softmax(x @ W) - targets) / batch."""
    x = np.asarray(x, dtype=np.float64)
    p = softmax(linear_logits(W, x))
    return x.T @ (p - np.asarray(targets, dtype=np.float64)) / x.shape[0]


def make_blobs(rng, n_per_class, centers, spread=1.0):
    """A toy classification set: ``n_per_class`` points around each centre (normal noise).

    Returns (x, labels): x of shape (n_per_class * len(centers), dim), int64 labels."""
    centers = np.asarray(centers, dtype=np.float64)
    xs, ys = [], []
    for k, c in enumerate(centers):
        xs.append(c + spread * rng.standard_normal((n_per_class, centers.shape[1])))
        ys.append(np.full(n_per_class, k, dtype=np.int64))
    return np.concatenate(xs), np.concatenate(ys)
