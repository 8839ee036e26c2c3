"""Candidate sets for two queries. Each retriever returned its top documents;
the candidate set is the union of the two lists, and every candidate was
scored by both retrievers (BM25 for the lexical one, the cosine similarity of
embeddings for the semantic one)."""

# Query: "how do vaccines train the immune system"
LEXICAL_Q1 = {
    "d01": 14.82, "d02": 12.10, "d03": 11.95, "d04": 9.40, "d05": 9.40,
    "d06": 7.73, "d07": 6.05, "d08": 3.88, "d09": 2.41, "d10": 1.12,
    "d11": 0.57, "d12": 0.0,
}
SEMANTIC_Q1 = {
    "d01": 0.640, "d02": 0.701, "d03": 0.455, "d04": 0.688, "d05": 0.590,
    "d06": 0.744, "d07": 0.402, "d08": 0.731, "d09": 0.318, "d10": 0.669,
    "d11": 0.520, "d12": 0.633,
}

# Query: "python list comprehension speed"
LEXICAL_Q2 = {
    "p1": 21.3, "p2": 18.7, "p3": 18.7, "p4": 11.2, "p5": 4.6, "p6": 0.9, "p7": 0.0,
}
SEMANTIC_Q2 = {
    "p1": 0.81, "p2": 0.35, "p3": 0.77, "p4": 0.79, "p5": -0.12, "p6": 0.64, "p7": 0.81,
}


def load_queries():
    """dict query id -> (lexical scores, semantic scores), fresh copies."""
    return {
        "q1": (dict(LEXICAL_Q1), dict(SEMANTIC_Q1)),
        "q2": (dict(LEXICAL_Q2), dict(SEMANTIC_Q2)),
    }
