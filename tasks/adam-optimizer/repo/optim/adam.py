"""Adam (Kingma & Ba, 2015) and AdamW (Loshchilov & Hutter, 2019) on lists of floats."""

import math

from optim.params import AdamState, check_hyperparameters, check_same_length


def update_moments(m, v, grad, beta1, beta2):
    """Exponential moving averages of the gradient and the squared gradient.

    Returns a tuple ``(new_m, new_v)`` of new lists; the inputs are not modified.
    """
    raise NotImplementedError


def adam_step(params, grad, state, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """One Adam update. Returns the new parameter list and updates ``state``
    (an ``AdamState``: step, m, v) in place."""
    raise NotImplementedError


def adamw_step(params, grad, state, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=1e-2):
    """One AdamW update (Adam plus decoupled weight decay). Returns the new
    parameter list and updates ``state`` in place."""
    raise NotImplementedError


def run_adam(objective, x0, steps, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0):
    """Minimise ``objective`` (with ``value`` and ``grad``) from ``x0`` for ``steps`` updates.

    Returns ``(x_final, losses)`` with ``losses`` = objective values at
    x_0, x_1, ..., x_steps (length ``steps + 1``).
    """
    raise NotImplementedError
