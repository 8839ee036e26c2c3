"""Normalised discounted cumulative gain with graded relevance (as analysed by
Wang et al., "A Theoretical Analysis of NDCG Type Ranking Measures", COLT 2013)."""

import math

from rankeval.ties import tie_groups


def gain(relevance):
    """Exponential gain G(r) = 2**r - 1 of a graded relevance label r >= 0
    (an int). Raises ValueError for a negative or non-integer label."""
    if isinstance(relevance, bool) or not isinstance(relevance, int) or relevance < 0:
        raise ValueError(f"relevance labels are non-negative integers, got {relevance!r}")
    # Sec. 1: the exponential gain G(y) = 2^y - 1 (0 for a non-relevant document).
    return float(2**relevance - 1)


def discount(rank):
    """Logarithmic discount D(r) = 1 / log2(1 + r) of a 1-based rank r.
    Raises ValueError for a rank below 1."""
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"ranks start at 1, got {rank!r}")
    # Sec. 1: the standard logarithmic discount D(r) = 1 / log2(1 + r), D(1) = 1.
    return 1.0 / math.log2(1 + rank)


def _check_k(k):
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be None or a positive integer, got {k!r}")


def _cutoff(k, n):
    # Top-k truncation: D(r) = 0 for r > k; no cut-off (or k >= n) keeps every rank.
    return n if k is None else min(k, n)


def dcg(ranked_relevances, k=None):
    """DCG@k of relevance labels listed in ranked order (best rank first)."""
    _check_k(k)
    labels = list(ranked_relevances)
    # Eq. (1): DCG = sum_r G(y_(r)) D(r), with D(r) = 0 beyond the cut-off (Eq. (3)).
    return math.fsum(gain(labels[r - 1]) * discount(r) for r in range(1, _cutoff(k, len(labels)) + 1))


def ideal_dcg(relevances, k=None):
    """The largest DCG@k any ordering of these labels can reach."""
    # Eq. (2): the maximum over all rankings is reached by sorting the labels
    # by decreasing relevance (G is increasing and D decreasing); every label of
    # the query takes part, not only those a system ranked in its top k.
    return dcg(sorted(relevances, reverse=True), k)


def tied_dcg(relevances, scores, k=None):
    """DCG@k of the ranking induced by scores, averaged over the orders of ties."""
    _check_k(k)
    relevances = list(relevances)
    scores = list(scores)
    if len(relevances) != len(scores):
        raise ValueError("relevances and scores must have the same length")
    limit = _cutoff(k, len(scores))
    total = []
    first_rank = 1
    # The paper leaves ties out (a ranking function is assumed to order the
    # documents strictly). Documents with equal scores can come in any order, so
    # the expected DCG over those orders is taken (McSherry and Najork, 2008): the
    # group's mean gain times the sum of the discounts of the ranks it occupies,
    # counting only ranks within the cut-off.
    for group in tie_groups(scores):
        last_rank = first_rank + len(group) - 1
        if first_rank > limit:
            break
        mean_gain = math.fsum(gain(relevances[i]) for i in group) / len(group)
        discounts = math.fsum(discount(r) for r in range(first_rank, min(last_rank, limit) + 1))
        total.append(mean_gain * discounts)
        first_rank = last_rank + 1
    return math.fsum(total)


def ndcg(relevances, scores, k=None):
    """NDCG@k in [0, 1] of one query."""
    relevances = list(relevances)
    if len(relevances) == 0:
        raise ValueError("a query needs at least one document")
    got = tied_dcg(relevances, scores, k)
    ideal = ideal_dcg(relevances, k)
    # The paper leaves this out: with no relevant document the ideal DCG is 0 and
    # NDCG is undefined; it is taken as 0 here (as in scikit-learn).
    if ideal == 0.0:
        return 0.0
    # Eq. (4): NDCG = DCG / IDCG.
    return got / ideal


def mean_ndcg(queries, k=None):
    """Mean NDCG@k over queries: dict query id -> (relevances, scores)."""
    if not queries:
        raise ValueError("no queries")
    # Every query weighs the same, whatever its number of judged documents.
    values = [ndcg(relevances, scores, k) for relevances, scores in queries.values()]
    return math.fsum(values) / len(values)
