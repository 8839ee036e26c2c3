"""A matrix regression problem: f(X) = 1/(2N) ||A X - B||_F^2 with A of shape (N, n)."""

import numpy as np


class MatrixLeastSquares:
    def __init__(self, A, B):
        self.A = np.asarray(A, dtype=np.float64)
        self.B = np.asarray(B, dtype=np.float64)
        if self.A.ndim != 2 or self.B.ndim != 2 or self.A.shape[0] != self.B.shape[0]:
            raise ValueError("A must be (N, n) and B (N, m)")

    def value(self, X):
        r = self.A @ X - self.B
        return float(0.5 * np.sum(r * r) / self.A.shape[0])

    def grad(self, X):
        return self.A.T @ (self.A @ X - self.B) / self.A.shape[0]


def make_problem(seed, n_examples, n, m, noise=0.1):
    """A random problem from numpy's RandomState(seed): A and a hidden X standard normal,
    B = A X + noise * standard normal."""
    rs = np.random.RandomState(seed)
    A = rs.standard_normal((n_examples, n))
    X = rs.standard_normal((n, m))
    B = A @ X + noise * rs.standard_normal((n_examples, m))
    return MatrixLeastSquares(A, B)
