"""Ranking the classes of one predicted distribution."""


def sort_classes(probs):
    """Classes by decreasing probability, with their probabilities and running totals.

    probs: list of K non-negative floats (one distribution).
    Returns (order, sorted_probs, cumulative), three lists of length K:
      order[k]        the class at rank k (rank 0 = most likely); ties go to the smaller class index first;
      sorted_probs[k] = probs[order[k]];
      cumulative[k]   = sorted_probs[0] + ... + sorted_probs[k], summed left to right.
    """
    order = sorted(range(len(probs)), key=lambda j: -probs[j])
    sorted_probs = [probs[j] for j in order]
    cumulative = []
    total = 0.0
    for p in sorted_probs:
        total += p
        cumulative.append(total)
    return order, sorted_probs, cumulative


def rank_of(order, label):
    """The rank (0-based position in order) of a class."""
    return order.index(label)
