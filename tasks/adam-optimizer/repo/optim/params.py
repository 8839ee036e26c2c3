"""Optimizer state and argument checks shared by the optimizers."""


class AdamState:
    """State of an Adam-family optimizer for a parameter vector of length n.

    Attributes:
        step: number of updates taken so far (0 before the first update).
        m: first-moment (mean) estimates, list of n floats, initially zeros.
        v: second raw-moment (uncentred variance) estimates, list of n floats, initially zeros.
    """

    def __init__(self, n):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"parameter count must be a positive integer, got {n!r}")
        self.step = 0
        self.m = [0.0] * n
        self.v = [0.0] * n

    def __len__(self):
        return len(self.m)


def check_same_length(**vectors):
    """Raise ``ValueError`` unless all keyword vectors have the same length."""
    lengths = {name: len(vec) for name, vec in vectors.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{k} {n}" for k, n in lengths.items())
        raise ValueError(f"vectors differ in length: {detail}")


def check_hyperparameters(lr, beta1, beta2, eps, weight_decay=0.0):
    """Raise ``ValueError`` for lr < 0, betas outside [0, 1), eps < 0 or weight_decay < 0."""
    if lr < 0:
        raise ValueError(f"learning rate must be >= 0, got {lr!r}")
    for name, b in (("beta1", beta1), ("beta2", beta2)):
        if not (0.0 <= b < 1.0):
            raise ValueError(f"{name} must be in [0, 1), got {b!r}")
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {eps!r}")
    if weight_decay < 0:
        raise ValueError(f"weight_decay must be >= 0, got {weight_decay!r}")
