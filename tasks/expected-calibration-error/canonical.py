"""Calibration error metrics with equal-width confidence bins (Guo et al., 2017)."""

from bisect import bisect_left

from calib.utils import bin_edges, check_confidences, correctness, mean


def assign_bins(confidences, n_bins):
    """Index of the confidence bin of every sample (see instruction.md)."""
    # Sec. 2: M interval bins of size 1/M; I_m = ((m-1)/M, m/M] (right-closed).
    edges = bin_edges(n_bins)  # validates n_bins
    check_confidences(confidences)
    out = []
    for c in confidences:
        # First edge >= c is the right edge of c's bin; bin index = that edge's index - 1.
        # A confidence of exactly 0 has no left-open bin; it joins the first one.
        out.append(max(bisect_left(edges, c) - 1, 0))
    return out


def reliability_stats(confidences, predictions, labels, n_bins):
    """Per-bin count, accuracy and mean confidence (reliability diagram)."""
    if len(confidences) != len(labels):
        raise ValueError(f"confidences has {len(confidences)} items but labels has {len(labels)}")
    correct = correctness(predictions, labels)
    bins = assign_bins(confidences, n_bins)
    edges = bin_edges(n_bins)
    members = [[] for _ in range(n_bins)]
    for i, b in enumerate(bins):
        members[b].append(i)
    stats = []
    for m, idx in enumerate(members):
        if idx:
            # Eq. (acc): acc(B_m) = 1/|B_m| sum_{i in B_m} 1(yhat_i = y_i)
            acc = mean([correct[i] for i in idx])
            # Eq. (conf): conf(B_m) = 1/|B_m| sum_{i in B_m} phat_i
            conf = mean([confidences[i] for i in idx])
        else:
            # Empty bins have no defined accuracy or confidence.
            acc = conf = None
        stats.append({"lower": edges[m], "upper": edges[m + 1], "count": len(idx), "accuracy": acc, "confidence": conf})
    return stats


def expected_calibration_error(confidences, predictions, labels, n_bins=15):
    """ECE = sum_m |B_m|/n |acc(B_m) - conf(B_m)|."""
    n = len(confidences)
    if n == 0:
        raise ValueError("calibration error of an empty set of predictions")
    ece = 0.0
    for s in reliability_stats(confidences, predictions, labels, n_bins):
        if s["count"] == 0:
            continue  # empty bins carry zero weight
        # Eq. (ECE): weight each bin by its share of ALL n samples.
        ece += s["count"] / n * abs(s["accuracy"] - s["confidence"])
    return ece


def maximum_calibration_error(confidences, predictions, labels, n_bins=15):
    """MCE = max over non-empty bins of |acc(B_m) - conf(B_m)|."""
    if len(confidences) == 0:
        raise ValueError("calibration error of an empty set of predictions")
    gaps = [
        abs(s["accuracy"] - s["confidence"])
        for s in reliability_stats(confidences, predictions, labels, n_bins)
        if s["count"] > 0  # Eq. (MCE): the max runs over non-empty bins only, unweighted
    ]
    return max(gaps)
