"""Test objectives with analytic gradients. Each has ``value(x)`` and ``grad(x)``
for a list of floats ``x``."""

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


class Rosenbrock:
    """f(x, y) = (1 - x)^2 + 100 (y - x^2)^2, minimum 0 at (1, 1)."""

    def value(self, p):
        x, y = p
        return (1.0 - x) ** 2 + 100.0 * (y - x * x) ** 2

    def grad(self, p):
        x, y = p
        return [-2.0 * (1.0 - x) - 400.0 * x * (y - x * x), 200.0 * (y - x * x)]
