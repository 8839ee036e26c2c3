"""Test objectives with analytic gradients.

Each objective has ``value(x) -> float`` and ``grad(x) -> list[float]`` for a
list of floats ``x``. ``LeastSquares`` also has ``sample_grad(x, rng)``, the
gradient of one example drawn with a single ``rng.randrange`` call, for
stochastic runs."""

import math


class Quadratic:
    """f(x) = 1/2 sum_i a_i (x_i - c_i)^2 with curvatures a_i > 0 and minimum at c."""

    def __init__(self, curvatures, center):
        if len(curvatures) != len(center):
            raise ValueError("curvatures and center differ in length")
        self.a = [float(a) for a in curvatures]
        self.c = [float(c) for c in center]

    def value(self, x):
        return 0.5 * math.fsum(a * (xi - c) ** 2 for a, xi, c in zip(self.a, x, self.c))

    def grad(self, x):
        return [a * (xi - c) for a, xi, c in zip(self.a, x, self.c)]


class LeastSquares:
    """f(x) = 1/(2N) sum_k (<a_k, x> - b_k)^2 over N examples (rows a_k, targets b_k)."""

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

    def grad(self, x):
        n = len(self.rows)
        res = [self._residual(k, x) for k in range(n)]
        return [math.fsum(res[k] * self.rows[k][j] for k in range(n)) / n for j in range(len(x))]

    def sample_grad(self, x, rng):
        """Gradient of the loss of one example k = rng.randrange(N) (one call of the generator)."""
        k = rng.randrange(len(self.rows))
        r = self._residual(k, x)
        return [r * a for a in self.rows[k]]


def make_regression(rng, n_examples, dim, noise=0.1):
    """A random least-squares problem: rows and a hidden solution uniform in [-1, 1],
    targets with uniform noise of the given amplitude."""
    rows = [[rng.uniform(-1.0, 1.0) for _ in range(dim)] for _ in range(n_examples)]
    w = [rng.uniform(-1.0, 1.0) for _ in range(dim)]
    targets = [math.fsum(a * wi for a, wi in zip(r, w)) + noise * rng.uniform(-1.0, 1.0) for r in rows]
    return LeastSquares(rows, targets)
