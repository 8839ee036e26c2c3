"""Seeded randomness for BPE-dropout."""

import math
import random


class MergeDropout:
    """Independent Bernoulli dropout of merge candidates with probability p.

    Every call of keep() decides about one candidate: with p == 0 it returns
    True without drawing; otherwise it draws one uniform number u with
    rng.random() and returns u > p (so p == 1 drops every candidate). Give
    either a seed or a random.Random instance."""

    def __init__(self, p, seed=None, rng=None):
        if isinstance(p, bool) or not isinstance(p, (int, float)) or math.isnan(p) or not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p!r}")
        if rng is not None and seed is not None:
            raise ValueError("give a seed or an rng, not both")
        self.p = float(p)
        self.rng = rng if rng is not None else random.Random(seed)
        self.draws = 0

    def keep(self):
        """True when the candidate survives (one draw unless p == 0)."""
        if self.p == 0.0:
            return True
        self.draws += 1
        return self.rng.random() > self.p
