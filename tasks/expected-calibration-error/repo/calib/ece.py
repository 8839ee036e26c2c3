"""Calibration error metrics with equal-width confidence bins (Guo et al., 2017)."""

from calib.utils import bin_edges, check_confidences, correctness, mean


def assign_bins(confidences, n_bins):
    """Index of the confidence bin of every sample.

    Bin ``m`` (0-based) is the right-closed interval ``(m/M, (m+1)/M]``;
    a confidence of exactly 0 belongs to bin 0.

    Args:
        confidences: sequence of floats in [0, 1].
        n_bins: number of equal-width bins M (positive int).
    Returns:
        list of ints in ``range(n_bins)``, one per confidence.
    Raises:
        ValueError: a confidence outside [0, 1] or ``n_bins`` < 1.
    """
    raise NotImplementedError


def reliability_stats(confidences, predictions, labels, n_bins):
    """Per-bin statistics of a reliability diagram.

    Returns:
        list of ``n_bins`` dicts with keys ``"lower"``, ``"upper"`` (bin edges),
        ``"count"`` (int), ``"accuracy"`` and ``"confidence"`` (floats, or
        ``None`` for an empty bin).
    """
    raise NotImplementedError


def expected_calibration_error(confidences, predictions, labels, n_bins=15):
    """Expected calibration error (ECE): bin-size weighted mean of
    ``|accuracy - confidence|`` over bins. Returns a float in [0, 1]."""
    raise NotImplementedError


def maximum_calibration_error(confidences, predictions, labels, n_bins=15):
    """Maximum calibration error (MCE): the largest ``|accuracy - confidence|``
    over the non-empty bins. Returns a float in [0, 1]."""
    raise NotImplementedError
