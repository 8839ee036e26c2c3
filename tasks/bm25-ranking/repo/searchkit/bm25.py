"""BM25 with Lucene's inverse document frequency, one of the variants Kamphuis,
de Vries, Boytsov and Lin compare ("Which BM25 Do You Mean?", ECIR 2020)."""

import math

from searchkit.text import term_counts, tokenize


def idf(n_docs, doc_freq):
    """Non-negative BM25 inverse document frequency of a term that occurs in
    ``doc_freq`` of ``n_docs`` documents. Returns a float > 0.
    Raises ValueError unless 0 <= doc_freq <= n_docs and n_docs >= 1."""
    raise NotImplementedError


def bm25_score(query_terms, doc_terms, doc_freqs, n_docs, avg_doc_len, k1=1.2, b=0.75):
    """BM25 score of one document for a query.

    query_terms: list of query terms (a term repeated in the query counts
    once); doc_terms: list of the document's terms; doc_freqs: dict term ->
    number of documents containing it; n_docs: collection size; avg_doc_len:
    mean document length in terms. Returns a float (0.0 when nothing matches)."""
    raise NotImplementedError


def rank(query, documents, k=10, k1=1.2, b=0.75):
    """Rank ``documents`` (a list of (doc_id, text)) for the query string.

    Returns at most k (doc_id, score) tuples, best first, ties broken by
    doc_id; documents with score 0 are left out."""
    raise NotImplementedError
