"""Fusion functions for hybrid retrieval (Bruch, Gai and Ingber, "An Analysis
of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023): convex combination
of normalised scores and reciprocal rank fusion."""

import math

from hybrid.ranking import check_candidates, rank_positions, sort_by_score
from hybrid.stats import mean_std, min_max

METHODS = ("mm", "tmm", "z")


def _is_number(x):
    return not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x)


def normalize(scores, method="mm", lower_bound=None):
    """Normalise one retriever's scores over the candidate set: dict doc_id -> float."""
    if method not in METHODS:
        raise ValueError(f"unknown normalization {method!r}; expected one of {METHODS}")
    if not scores:
        raise ValueError("cannot normalize an empty score list")
    if method == "z":
        # Eq. (4), phi_z: (f - mu) / sigma with the mean and the (population)
        # standard deviation of the scores of the candidate set.
        mu, sigma = mean_std(scores.values())
        if sigma == 0.0:
            # The paper leaves this out: identical scores carry no information,
            # every normalised score is 0.
            return {d: 0.0 for d in scores}
        return {d: (s - mu) / sigma for d, s in scores.items()}
    m_q, big_m_q = min_max(scores.values())
    if method == "tmm":
        # Eq. (3), phi_TMM: the observed minimum is replaced by the theoretical
        # lower bound of the scoring function (0 for BM25, -1 for cosine); the
        # maximum is still the observed one.
        if not _is_number(lower_bound):
            raise ValueError("theoretical min-max normalization needs a finite lower_bound")
        if m_q < lower_bound:
            raise ValueError(f"a score ({m_q}) lies below the lower bound {lower_bound}")
        m_q = lower_bound
    # Eq. (2), phi_MM: (f - m_q) / (M_q - m_q).
    spread = big_m_q - m_q
    if spread == 0.0:
        # The paper leaves this out: with no spread every normalised score is 0.
        return {d: 0.0 for d in scores}
    return {d: (s - m_q) / spread for d, s in scores.items()}


def convex_combination(lex_scores, sem_scores, alpha, normalization="mm", lex_lower=0.0, sem_lower=-1.0):
    """alpha * phi(f_Sem) + (1 - alpha) * phi(f_Lex) for every candidate."""
    check_candidates(lex_scores, sem_scores)
    if not _is_number(alpha) or not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha!r}")
    # Each retriever is normalised on its own (its own min, max, mean and std);
    # the theoretical lower bound differs between BM25 and cosine similarity.
    lex = normalize(lex_scores, normalization, lex_lower)
    sem = normalize(sem_scores, normalization, sem_lower)
    # Eq. (1): f_Convex(q, d) = alpha phi(f_Sem(q, d)) + (1 - alpha) phi(f_Lex(q, d)).
    return {d: alpha * sem[d] + (1.0 - alpha) * lex[d] for d in lex_scores}


def reciprocal_rank_fusion(lex_scores, sem_scores, eta_lex=60, eta_sem=60):
    """Sum over the two retrievers of 1 / (eta_o + rank_o(d)), rank 1 = best."""
    check_candidates(lex_scores, sem_scores)
    for name, eta in (("eta_lex", eta_lex), ("eta_sem", eta_sem)):
        if not _is_number(eta) or eta < 0:
            raise ValueError(f"{name} must be a non-negative number, got {eta!r}")
    # pi_o(q, d): the rank of d in retriever o's ranked list, starting at 1 for
    # the best document; equal scores are ordered by document id (the paper
    # leaves ties out; the repository's rank_positions fixes this order).
    pi_lex = rank_positions(lex_scores)
    pi_sem = rank_positions(sem_scores)
    # Eq. (5) with one eta per retriever (Eq. (6)); eta_lex = eta_sem = 60 is the
    # original RRF of Cormack et al. Only ranks enter, never the raw scores.
    return {d: 1.0 / (eta_lex + pi_lex[d]) + 1.0 / (eta_sem + pi_sem[d]) for d in lex_scores}


def hybrid_ranking(lex_scores, sem_scores, k, method="convex", alpha=None, normalization="tmm",
                   lex_lower=0.0, sem_lower=-1.0, eta_lex=60, eta_sem=60):
    """The top-k fused list: (doc_id, fused score) tuples, best first."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if method == "convex":
        if alpha is None:
            raise ValueError("the convex combination needs alpha")
        fused = convex_combination(lex_scores, sem_scores, alpha, normalization, lex_lower, sem_lower)
    elif method == "rrf":
        fused = reciprocal_rank_fusion(lex_scores, sem_scores, eta_lex, eta_sem)
    else:
        raise ValueError(f"unknown fusion method {method!r}")
    # The hybrid system ranks the candidate set by the fused score (ties by id).
    return sort_by_score(fused)[:k]
