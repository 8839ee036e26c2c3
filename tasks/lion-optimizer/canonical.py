"""Lion, EvoLved Sign Momentum (Chen et al., "Symbolic Discovery of Optimization
Algorithms", NeurIPS 2023), on lists of floats."""

from lionopt.params import LionState, check_beta, check_non_negative, check_same_length


def _sign(v):
    # paper.tex, after Eq. (3): sign(0) = 0, as in tensor libraries' sign: a coordinate whose
    # interpolated momentum is exactly zero is not moved (math.copysign would give +-1 here).
    if v > 0.0:
        return 1.0
    if v < 0.0:
        return -1.0
    return 0.0


def lion_direction(m, grad, beta1):
    """sign(beta1 * m + (1 - beta1) * grad), element-wise, as a list of -1.0, 0.0 and 1.0."""
    check_same_length(m=m, grad=grad)
    check_beta("beta1", beta1)
    # Eq. (1) (Algorithm 2): c_t = beta1 m_{t-1} + (1 - beta1) g_t; only its sign is used.
    return [_sign(beta1 * mi + (1.0 - beta1) * g) for mi, g in zip(m, grad)]


def update_momentum(m, grad, beta2):
    """The new momentum beta2 * m + (1 - beta2) * grad, as a new list."""
    check_same_length(m=m, grad=grad)
    check_beta("beta2", beta2)
    # Eq. (3) (Algorithm 2): m_t = beta2 m_{t-1} + (1 - beta2) g_t, with the second, slower rate beta2.
    return [beta2 * mi + (1.0 - beta2) * g for mi, g in zip(m, grad)]


def lion_step(params, grad, state, lr=1e-4, beta1=0.9, beta2=0.99, weight_decay=0.0):
    """One Lion update; returns the new parameters and updates ``state`` in place."""
    check_same_length(params=params, grad=grad, state=state.m)
    check_non_negative("lr", lr)
    check_non_negative("weight_decay", weight_decay)
    # The direction uses the momentum from before this step (m_{t-1}) ...
    direction = lion_direction(state.m, grad, beta1)
    # Eq. (2): theta_t = theta_{t-1} - eta_t (sign(c_t) + lambda theta_{t-1}); the decay is
    # decoupled (it never enters the momentum) and uses the parameters before the step.
    new_params = [p - lr * (d + weight_decay * p) for p, d in zip(params, direction)]
    # ... and only afterwards is the momentum updated with beta2 (Eq. 3).
    state.m = update_momentum(state.m, grad, beta2)
    state.step += 1
    return new_params


def run_lion(objective, x0, steps, lr=1e-4, beta1=0.9, beta2=0.99, weight_decay=0.0):
    """Minimise ``objective`` from ``x0`` with ``steps`` Lion updates; returns (x_final, losses)."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be a non-negative integer, got {steps!r}")
    x = [float(v) for v in x0]  # never modify the caller's list
    state = LionState(len(x))  # Algorithm 2: m_0 = 0
    losses = [objective.value(x)]
    for _ in range(steps):
        g = objective.grad(x)
        x = lion_step(x, g, state, lr, beta1, beta2, weight_decay)
        losses.append(objective.value(x))
    return x, losses
