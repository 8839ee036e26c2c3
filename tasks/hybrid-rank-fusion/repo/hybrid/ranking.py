"""Ranking helpers shared by the fusion functions.

A *score list* is a dict mapping a document id (str) to a float score; higher
is better."""


def sort_by_score(scores):
    """(doc_id, score) pairs from best to worst: by score descending, equal
    scores by doc_id ascending. Returns a list of tuples."""
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def rank_positions(scores):
    """Rank of every document in the order of ``sort_by_score``: dict
    doc_id -> int, 1 for the best document (equal scores get distinct ranks,
    the smaller doc_id first)."""
    return {doc_id: i + 1 for i, (doc_id, _) in enumerate(sort_by_score(scores))}


def check_candidates(lex_scores, sem_scores):
    """Raise ValueError unless both score lists are non-empty and cover the
    same documents."""
    if not lex_scores or not sem_scores:
        raise ValueError("score lists must not be empty")
    if set(lex_scores) != set(sem_scores):
        missing = sorted(set(lex_scores) ^ set(sem_scores))
        raise ValueError(f"both retrievers must score the same candidates; differing: {missing[:5]}")
