"""Schedule-free SGD (Defazio et al., "The Road Less Scheduled", NeurIPS 2024)."""

import math

from sfree.vectors import axpy, check_same_length, check_unit_interval, lerp


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")


def _check_non_negative(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value >= 0.0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


def warmup_lr(lr, t, warmup_steps):
    """Learning rate gamma_t of step t (t = 1, 2, ...) under linear warmup."""
    _check_non_negative("lr", lr)
    _check_int("t", t, 1)
    _check_int("warmup_steps", warmup_steps, 0)
    # paper.tex, "Warmup and the weighting of the average": gamma_t = gamma min(1, t / T_warmup).
    # The paper leaves out T_warmup = 0: it means no warmup (the full rate from the first step).
    if t < warmup_steps:
        return lr * (t / warmup_steps)
    return float(lr)


class ScheduleFreeSGD:
    """Schedule-free SGD on a list of floats: the sequences z (SGD), x (average) and y (gradient point)."""

    def __init__(self, x0, lr=1.0, beta=0.9, warmup_steps=0, weight_decay=0.0):
        _check_non_negative("lr", lr)
        check_unit_interval("beta", beta)
        _check_int("warmup_steps", warmup_steps, 0)
        _check_non_negative("weight_decay", weight_decay)
        if len(x0) == 0:
            raise ValueError("x0 must not be empty")
        self.lr = lr
        self.beta = beta
        self.warmup_steps = warmup_steps
        self.weight_decay = weight_decay
        # Eqs. (1)-(3): z_1 = x_1 is the initial point, so y_1 = x_1 as well.
        self.x = [float(v) for v in x0]
        self.z = list(self.x)
        self.y = list(self.x)
        self.t = 0
        # Running sum of gamma_i^2 for the averaging weights.
        self._weight_sum = 0.0

    def step(self, grad):
        """One update with the gradient evaluated at ``self.y``; returns c_{t+1}."""
        check_same_length(grad=grad, y=self.y)
        t = self.t + 1
        gamma = warmup_lr(self.lr, t, self.warmup_steps)
        # paper.tex, "Weight decay": the decay is taken at the gradient point y_t (- gamma_t lambda y_t).
        g = axpy(self.weight_decay, self.y, grad) if self.weight_decay != 0.0 else list(grad)
        # Eq. (2) with the warmed-up step size: z_{t+1} = z_t - gamma_t (grad f(y_t) + lambda y_t).
        self.z = axpy(-gamma, g, self.z)
        # Eq. (4): c_{t+1} = gamma_t^2 / sum_{i=1}^t gamma_i^2 (shifted by one from the
        # c_{t+1} = 1/(t+1) of the theory, so x_2 = z_2 and z_1 gets no weight).
        # The paper leaves out the case of a zero sum (lr = 0): like the reference code, c = 0 then.
        weight = gamma * gamma
        self._weight_sum += weight
        c = weight / self._weight_sum if self._weight_sum > 0.0 else 0.0
        # Eq. (3): x_{t+1} = (1 - c_{t+1}) x_t + c_{t+1} z_{t+1}.
        self.x = lerp(self.x, self.z, c)
        # Eq. (1) for the next step: y_{t+1} = (1 - beta) z_{t+1} + beta x_{t+1}.
        self.y = lerp(self.z, self.x, self.beta)
        self.t = t
        return c


def run_schedule_free(objective, x0, steps, lr=1.0, beta=0.9, warmup_steps=0, weight_decay=0.0, rng=None):
    """Minimise ``objective`` for ``steps`` updates; returns (x_final, losses at the averaged points)."""
    _check_int("steps", steps, 0)
    opt = ScheduleFreeSGD(x0, lr=lr, beta=beta, warmup_steps=warmup_steps, weight_decay=weight_decay)
    # paper.tex, Sec. 1: x is the point whose loss is evaluated and which is returned (not y or z).
    losses = [objective.value(opt.x)]
    for _ in range(steps):
        # Eq. (2): gradients are always taken at the interpolated point y_t.
        g = objective.grad(opt.y) if rng is None else objective.sample_grad(opt.y, rng)
        opt.step(g)
        losses.append(objective.value(opt.x))
    return list(opt.x), losses
