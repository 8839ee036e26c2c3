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


def sample_lambda(alpha, rng):
    """The mixing weight lambda ~ Beta(alpha, alpha); alpha = 0 gives 1.0 without a draw."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not (np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    # paper.tex, Sec. 1: lambda ~ Beta(alpha, alpha) with alpha in (0, inf). The paper leaves alpha = 0 out
    # (it is the limit that recovers ERM); like the authors' code, lambda = 1 then, with no draw.
    if alpha == 0:
        return 1.0
    return draw_beta(rng, alpha)


def mixup_batch(x, y, alpha, rng):
    """Mix a batch with a shuffled copy of itself; returns (x_mixed, y_mixed, lam, index)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim < 1 or y.ndim != 2 or x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ValueError(f"need a non-empty batch with one target row per input, got {x.shape} and {y.shape}")
    # paper.tex, "Implementation": one lambda per batch, drawn before the permutation (as in the
    # authors' code; the order of the draws fixes the seeded stream).
    lam = sample_lambda(alpha, rng)
    # paper.tex, "Implementation": a single data loader; the second example of each pair is taken from the
    # same minibatch after a random shuffle, instead of a second loader.
    index = draw_permutation(rng, x.shape[0])
    # Eqs. (1)-(2): x~ = lambda x_i + (1 - lambda) x_j and y~ = lambda y_i + (1 - lambda) y_j, with the
    # same lambda for inputs and one-hot targets.
    x_mixed = lam * x + (1.0 - lam) * x[index]
    y_mixed = lam * y + (1.0 - lam) * y[index]
    return x_mixed, y_mixed, lam, index


def soft_cross_entropy(logits, targets):
    """Mean over the batch of -sum_k targets[k] log softmax(logits)[k]."""
    logits = np.asarray(logits, dtype=np.float64)
    targets = np.asarray(targets, dtype=np.float64)
    if logits.ndim != 2 or logits.shape != targets.shape:
        raise ValueError(f"logits and targets must be (batch, classes) arrays of one shape, got {logits.shape} and {targets.shape}")
    # paper.tex, "Implementation": the cross-entropy is linear in the target, so the loss on the mixed target equals
    # lambda CE(y_i) + (1 - lambda) CE(y_j), the form of the authors' training loop.
    return float(-(targets * log_softmax(logits)).sum(axis=1).mean())


def mixup_train_step(W, x, y, alpha, lr, rng):
    """One SGD step of the linear softmax classifier on a mixed batch; returns (W_new, loss)."""
    W = np.asarray(W, dtype=np.float64)
    # paper.tex, Sec. 1: train on the virtual examples (x~, y~) instead of the batch itself.
    x_mixed, y_mixed, _, _ = mixup_batch(x, y, alpha, rng)
    loss = soft_cross_entropy(x_mixed @ W, y_mixed)
    return W - lr * soft_target_gradient(W, x_mixed, y_mixed), loss
