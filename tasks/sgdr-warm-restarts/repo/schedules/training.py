"""SGD with (heavy-ball) momentum and a mini-batch least-squares problem."""

import math


class MomentumSGD:
    """Heavy-ball momentum: v <- momentum * v - lr * grad; x <- x + v.

    The learning rate is passed to every ``step``, so any schedule can drive it."""

    def __init__(self, n, momentum=0.9):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"parameter count must be a positive integer, got {n!r}")
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"momentum must be in [0, 1), got {momentum!r}")
        self.momentum = momentum
        self.velocity = [0.0] * n

    def step(self, x, grad, lr):
        """Return the new parameters (a new list); updates the velocity."""
        if len(x) != len(self.velocity) or len(grad) != len(self.velocity):
            raise ValueError("parameters, gradient and velocity differ in length")
        self.velocity = [self.momentum * v - lr * g for v, g in zip(self.velocity, grad)]
        return [xi + vi for xi, vi in zip(x, self.velocity)]


class BatchedLeastSquares:
    """f(x) = 1/(2N) sum_k (<a_k, x> - b_k)^2, its N examples split into mini-batches.

    ``batch_grad(x, b, n_batches)`` is the gradient of the mean loss over batch ``b`` of
    ``n_batches`` contiguous, nearly equal slices (a fixed order: no shuffling)."""

    def __init__(self, rows, targets):
        if len(rows) != len(targets) or not rows:
            raise ValueError("need as many targets as rows, and at least one row")
        self.rows = [[float(v) for v in r] for r in rows]
        self.targets = [float(t) for t in targets]

    def _residual(self, k, x):
        return math.fsum(a * xi for a, xi in zip(self.rows[k], x)) - self.targets[k]

    def value(self, x):
        n = len(self.rows)
        return 0.5 * math.fsum(self._residual(k, x) ** 2 for k in range(n)) / n

    def batch_grad(self, x, b, n_batches):
        n = len(self.rows)
        if not 0 <= b < n_batches or n_batches > n:
            raise ValueError(f"batch {b} of {n_batches} does not exist for {n} examples")
        lo, hi = (b * n) // n_batches, ((b + 1) * n) // n_batches
        res = {k: self._residual(k, x) for k in range(lo, hi)}
        return [math.fsum(res[k] * self.rows[k][j] for k in range(lo, hi)) / (hi - lo) for j in range(len(x))]


def make_problem(rng, n_examples, dim, noise=0.2):
    """A random least-squares problem with rows and a hidden solution uniform in [-1, 1]."""
    rows = [[rng.uniform(-1.0, 1.0) for _ in range(dim)] for _ in range(n_examples)]
    w = [rng.uniform(-1.0, 1.0) for _ in range(dim)]
    targets = [math.fsum(a * wi for a, wi in zip(r, w)) + noise * rng.uniform(-1.0, 1.0) for r in rows]
    return BatchedLeastSquares(rows, targets)
