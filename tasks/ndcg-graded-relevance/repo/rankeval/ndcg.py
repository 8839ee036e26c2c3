"""Normalised discounted cumulative gain with graded relevance (as analysed by
Wang et al., "A Theoretical Analysis of NDCG Type Ranking Measures", COLT 2013)."""

import math


def gain(relevance):
    """Exponential gain G(r) = 2**r - 1 of a graded relevance label r >= 0
    (an int). Raises ValueError for a negative or non-integer label."""
    if isinstance(relevance, bool) or not isinstance(relevance, int) or relevance < 0:
        raise ValueError(f"relevance labels are non-negative integers, got {relevance!r}")
    return float(2**relevance - 1)


def discount(rank):
    """Logarithmic discount D(r) = 1 / log2(1 + r) of a 1-based rank r.
    Raises ValueError for a rank below 1."""
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"ranks start at 1, got {rank!r}")
    return 1.0 / math.log2(1 + rank)
