"""Graded relevance judgements (0 = not relevant ... 4 = perfect) and the
scores a ranking system gave to the judged documents of four queries."""

# query id -> (relevance labels, system scores), aligned by document
QUERIES = {
    "q1": ([3, 2, 3, 0, 1, 2, 0, 0, 1, 0],
           [0.91, 0.85, 0.42, 0.77, 0.64, 0.60, 0.12, 0.33, 0.35, 0.05]),
    "q2": ([0, 4, 1, 0, 2, 0, 3],
           [2.0, 1.5, 1.5, 1.5, 0.5, 0.5, 0.0]),
    "q3": ([1, 0, 0, 2, 0, 0, 1, 0],
           [0.7, 0.7, 0.7, 0.7, 0.1, 0.1, 0.1, 0.1]),
    "q4": ([0, 0, 0, 0, 0],
           [0.4, 0.3, 0.2, 0.1, 0.0]),
}


def load_run():
    """dict query id -> (labels, scores) as fresh lists."""
    return {q: (list(labels), list(scores)) for q, (labels, scores) in QUERIES.items()}
