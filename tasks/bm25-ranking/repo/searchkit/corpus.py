"""A small demonstration collection: (doc_id, text) pairs."""

DOCUMENTS = [
    ("d01", "The probabilistic relevance framework ranks documents by the probability of relevance."),
    ("d02", "BM25 is a ranking function: term frequency saturates and long documents are normalised."),
    ("d03", "Cats and dogs are popular pets; a cat sleeps most of the day."),
    ("d04", "Inverse document frequency gives rare terms more weight than common terms in ranking."),
    ("d05", "Relevance feedback updates term weights from documents judged relevant by the user."),
    ("d06", "A long document about ranking, ranking, ranking and more ranking, with many other words that dilute each term in a document of this considerable length."),
    ("d07", "The cat sat on the mat."),
    ("d08", "Language models for retrieval estimate the probability of the query given the document."),
    ("d09", "Probabilistic models of retrieval: the binary independence model and its term weights."),
    ("d10", "The cat sat on the mat."),
    ("d11", "Okapi at TREC: experiments with term frequency and document length normalisation."),
    ("d12", "Search engines index documents and rank them for each query."),
]


def load_corpus():
    """Return a fresh list of the demonstration (doc_id, text) pairs."""
    return list(DOCUMENTS)
