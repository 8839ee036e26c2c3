"""Shared helpers for the calibration metrics."""

import math


def bin_edges(n_bins):
    """Edges of ``n_bins`` equal-width bins on [0, 1]: ``[0/M, 1/M, ..., M/M]``.

    Each edge is computed as ``i / n_bins`` so that it equals the literal
    decimal (``3 / 10 == 0.3``). Raises ``ValueError`` if ``n_bins`` is not a
    positive integer.
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
    return [i / n_bins for i in range(n_bins + 1)]


def check_confidences(confidences):
    """Raise ``ValueError`` unless every confidence is a number in [0, 1]."""
    for i, c in enumerate(confidences):
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not (0.0 <= c <= 1.0):
            raise ValueError(f"confidences[{i}] = {c!r} is not a probability in [0, 1]")


def correctness(predictions, labels):
    """1.0 where the predicted class equals the label, else 0.0.

    Raises ``ValueError`` if the two sequences differ in length.
    """
    if len(predictions) != len(labels):
        raise ValueError(f"predictions has {len(predictions)} items but labels has {len(labels)}")
    return [1.0 if p == y else 0.0 for p, y in zip(predictions, labels)]


def mean(values):
    """Arithmetic mean of a non-empty sequence (exactly rounded sum, ``math.fsum``)."""
    if len(values) == 0:
        raise ValueError("mean of an empty sequence")
    return math.fsum(values) / len(values)
