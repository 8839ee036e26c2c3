"""Optimizer state for Adafactor."""

import numpy as np


class AdafactorState:
    """State of Adafactor for one parameter of the given shape.

    Attributes:
        step: number of updates taken so far (0 before the first update).
        shape: the parameter's shape, a tuple of one or two ints.
        row, col: for a matrix of shape (n, m), the factored second-moment statistics,
            float64 arrays of shapes (n,) and (m,), initially zeros; None for a vector.
        v: for a vector of shape (n,), the unfactored second-moment estimate, a float64
            array of shape (n,), initially zeros; None for a matrix.
    """

    def __init__(self, shape):
        shape = tuple(int(s) for s in shape)
        if len(shape) not in (1, 2) or min(shape) < 1:
            raise ValueError(f"Adafactor state needs a vector or matrix shape, got {shape}")
        self.step = 0
        self.shape = shape
        if len(shape) == 2:
            self.row = np.zeros(shape[0])
            self.col = np.zeros(shape[1])
            self.v = None
        else:
            self.row = None
            self.col = None
            self.v = np.zeros(shape[0])

    @property
    def factored(self):
        return len(self.shape) == 2
