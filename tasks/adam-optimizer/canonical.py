"""Adam (Kingma & Ba, 2015) and AdamW (Loshchilov & Hutter, 2019) on lists of floats."""

import math

from optim.params import AdamState, check_hyperparameters, check_same_length


def update_moments(m, v, grad, beta1, beta2):
    """Exponential moving averages of the gradient and the squared gradient."""
    check_same_length(m=m, v=v, grad=grad)
    check_hyperparameters(0.0, beta1, beta2, 0.0)
    # Algorithm 1: m_t = beta1 m_{t-1} + (1 - beta1) g_t
    new_m = [beta1 * mi + (1.0 - beta1) * g for mi, g in zip(m, grad)]
    # Algorithm 1: v_t = beta2 v_{t-1} + (1 - beta2) g_t^2 (element-wise square)
    new_v = [beta2 * vi + (1.0 - beta2) * g * g for vi, g in zip(v, grad)]
    return new_m, new_v


def adam_step(params, grad, state, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    """One Adam update; returns new params, updates state in place."""
    check_same_length(params=params, grad=grad, state=state.m)
    check_hyperparameters(lr, beta1, beta2, eps)
    # t <- t + 1 before the update: the first step uses t = 1.
    state.step += 1
    t = state.step
    state.m, state.v = update_moments(state.m, state.v, grad, beta1, beta2)
    # Sec. 3: bias correction of the zero-initialised moving averages.
    c1 = 1.0 - beta1**t
    c2 = 1.0 - beta2**t
    new_params = []
    for p, m, v in zip(params, state.m, state.v):
        m_hat = m / c1  # \hat m_t = m_t / (1 - beta1^t)
        v_hat = v / c2  # \hat v_t = v_t / (1 - beta2^t)
        # theta_t = theta_{t-1} - alpha \hat m_t / (sqrt(\hat v_t) + eps)   (eps outside the root)
        new_params.append(p - lr * m_hat / (math.sqrt(v_hat) + eps))
    return new_params


def adamw_step(params, grad, state, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=1e-2):
    """One AdamW update: the Adam step on the raw gradient plus a decay of the old weights."""
    check_hyperparameters(lr, beta1, beta2, eps, weight_decay)
    # Decoupled: the decay never enters the moments (the gradient is NOT g + lambda theta).
    stepped = adam_step(params, grad, state, lr, beta1, beta2, eps)
    # theta_t = theta_{t-1} - alpha (\hat m_t/(sqrt(\hat v_t)+eps) + lambda theta_{t-1})
    return [s - lr * weight_decay * p for s, p in zip(stepped, params)]


def run_adam(objective, x0, steps, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0):
    """Minimise objective from x0 for `steps` AdamW updates; returns (x_final, losses)."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be a non-negative integer, got {steps!r}")
    x = [float(xi) for xi in x0]  # never modify the caller's list
    state = AdamState(len(x))  # m_0 = 0, v_0 = 0, t = 0
    losses = [objective.value(x)]
    for _ in range(steps):
        g = objective.grad(x)
        x = adamw_step(x, g, state, lr, beta1, beta2, eps, weight_decay)
        losses.append(objective.value(x))
    return x, losses
