"""Adafactor (Shazeer & Stern, "Adafactor: Adaptive Learning Rates with Sublinear
Memory Cost", ICML 2018)."""

import math

import numpy as np

from factored.linalg import as_parameter, rms
from factored.state import AdafactorState


def _check_step(t):
    if isinstance(t, bool) or not isinstance(t, int) or t < 1:
        raise ValueError(f"the step number t must be an int >= 1, got {t!r}")


def relative_step_size(t, rho_max=1e-2):
    """rho_t = min(rho_max, 1 / sqrt(t))."""
    _check_step(t)
    # Eq. (3) and the proposed hyperparameters: rho_t = min(10^-2, 1/sqrt(t)).
    return min(rho_max, 1.0 / math.sqrt(t))


def second_moment_decay(t, c=0.8):
    """beta2_t = 1 - t^(-c), so beta2_1 = 0."""
    _check_step(t)
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"the decay exponent must be in [0, 1], got {c!r}")
    # paper.tex, "Update clipping and increasing decay": hat beta_{2t} = 1 - t^{-c}; the first step (t = 1) has
    # decay 0, so no bias correction is needed.
    return 1.0 - t ** (-c)


def factored_second_moment(row, col, grad, beta2, eps1=1e-30):
    """Factored second-moment update for a matrix gradient; returns (row, col, v_hat)."""
    grad = np.asarray(grad, dtype=np.float64)
    row = np.asarray(row, dtype=np.float64)
    col = np.asarray(col, dtype=np.float64)
    if grad.ndim != 2 or row.shape != (grad.shape[0],) or col.shape != (grad.shape[1],):
        raise ValueError(f"need a matrix gradient with matching row and column statistics, got {grad.shape}, {row.shape}, {col.shape}")
    if not 0.0 <= beta2 <= 1.0:
        raise ValueError(f"beta2 must be in [0, 1], got {beta2!r}")
    # Eqs. (5)-(6) (Algorithm 4): eps1 is added to every squared entry before the sums.
    sq = np.square(grad) + eps1
    # Eq. (5): R_t = beta2 R_{t-1} + (1 - beta2) (G_t^2 + eps1 1_n 1_m^T) 1_m  (row sums, not means)
    new_row = beta2 * row + (1.0 - beta2) * sq.sum(axis=1)
    # Eq. (6): C_t = beta2 C_{t-1} + (1 - beta2) 1_n^T (G_t^2 + eps1 1_n 1_m^T)  (column sums)
    new_col = beta2 * col + (1.0 - beta2) * sq.sum(axis=0)
    # Eq. (7): hat V_t = R_t C_t / (1_n^T R_t), the rank-1 factorisation of Eq. (1).
    v_hat = np.outer(new_row, new_col) / new_row.sum()
    return new_row, new_col, v_hat


def adafactor_step(X, grad, state, eps1=1e-30, eps2=1e-3, d=1.0, c=0.8, rho_max=1e-2):
    """One Adafactor update of a vector or matrix parameter; returns the new parameter."""
    X = as_parameter(X, "X")
    grad = as_parameter(grad, "grad")
    if grad.shape != X.shape or tuple(state.shape) != X.shape:
        raise ValueError(f"parameter {X.shape}, gradient {grad.shape} and state {tuple(state.shape)} differ in shape")
    if not d > 0.0:
        raise ValueError(f"the clipping threshold d must be positive, got {d!r}")
    t = state.step + 1
    rho = relative_step_size(t, rho_max)
    beta2 = second_moment_decay(t, c)
    if X.ndim == 2:
        # Algorithm 4 (matrices): factored second moments.
        state.row, state.col, v_hat = factored_second_moment(state.row, state.col, grad, beta2, eps1)
    else:
        # Algorithm 5 (vectors): V_t = beta2 V_{t-1} + (1 - beta2) (G_t^2 + eps1 1_n).
        state.v = beta2 * state.v + (1.0 - beta2) * (np.square(grad) + eps1)
        v_hat = state.v
    # Eq. (8): U_t = G_t / sqrt(hat V_t)
    U = grad / np.sqrt(v_hat)
    # Eqs. (2) and (9), update clipping: hat U_t = U_t / max(1, RMS(U_t) / d).
    U_hat = U / max(1.0, rms(U) / d)
    # Eqs. (3) and (10), relative step size: alpha_t = max(eps2, RMS(X_{t-1})) rho_t, with the parameter
    # before the update.
    alpha = max(eps2, rms(X)) * rho
    state.step = t
    # Eq. (11): X_t = X_{t-1} - alpha_t hat U_t
    return X - alpha * U_hat


def run_adafactor(objective, X0, steps, **hyperparameters):
    """Minimise ``objective`` from ``X0`` with ``steps`` Adafactor updates; returns (X_final, losses)."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be a non-negative integer, got {steps!r}")
    X = as_parameter(X0, "X0")  # a new array: X0 is never modified
    state = AdafactorState(X.shape)
    losses = [objective.value(X)]
    for _ in range(steps):
        X = adafactor_step(X, objective.grad(X), state, **hyperparameters)
        losses.append(objective.value(X))
    return X, losses
