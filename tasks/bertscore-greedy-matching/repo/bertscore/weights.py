"""Token importance weights."""

import numpy as np


class IdfTable:
    """Inverse document frequency weights: ``weights`` maps a token to its
    weight; a token that is not in the table gets ``default``."""

    def __init__(self, weights, default):
        self.weights = dict(weights)
        self.default = float(default)

    def __getitem__(self, token):
        return self.weights.get(token, self.default)

    def weights_for(self, tokens):
        """The weights of a token list as a float64 array of the same length."""
        return np.array([self[t] for t in tokens], dtype=np.float64)
