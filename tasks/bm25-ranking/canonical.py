"""BM25 with Lucene's inverse document frequency, one of the variants Kamphuis,
de Vries, Boytsov and Lin compare ("Which BM25 Do You Mean?", ECIR 2020)."""

import math

from searchkit.text import term_counts, tokenize


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def idf(n_docs, doc_freq):
    """Non-negative BM25 inverse document frequency of a term that occurs in
    ``doc_freq`` of ``n_docs`` documents. Returns a float > 0.
    Raises ValueError unless 0 <= doc_freq <= n_docs and n_docs >= 1."""
    if not (_is_int(n_docs) and _is_int(doc_freq)):
        raise ValueError("n_docs and doc_freq must be integers")
    if n_docs < 1 or not 0 <= doc_freq <= n_docs:
        raise ValueError(f"need n_docs >= 1 and 0 <= doc_freq <= n_docs, got n_docs={n_docs}, doc_freq={doc_freq}")
    # Eq. (2), the Robertson/Sparck Jones weight without relevance information,
    # is log((N - n + 0.5) / (n + 0.5)); it turns negative for n > N/2.
    # Eq. (3), Lucene's variant (the one used here): add 1 inside the log, so the
    # weight is always positive and decreases with n.
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


def bm25_score(query_terms, doc_terms, doc_freqs, n_docs, avg_doc_len, k1=1.2, b=0.75):
    """BM25 score of one document for a query.

    query_terms: list of query terms (a term repeated in the query counts
    once); doc_terms: list of the document's terms; doc_freqs: dict term ->
    number of documents containing it; n_docs: collection size; avg_doc_len:
    mean document length in terms. Returns a float (0.0 when nothing matches)."""
    if not k1 >= 0.0:
        raise ValueError(f"k1 must be >= 0, got {k1!r}")
    if not 0.0 <= b <= 1.0:
        raise ValueError(f"b must be in [0, 1], got {b!r}")
    if not avg_doc_len > 0.0:
        raise ValueError(f"avg_doc_len must be positive, got {avg_doc_len!r}")
    tf = term_counts(doc_terms)
    dl = len(doc_terms)
    # Eq. (4): the length-normalised saturation constant K = k1 ((1 - b) + b dl / avgdl).
    K = k1 * ((1.0 - b) + b * dl / avg_doc_len)
    score = 0.0
    # Query term frequency is ignored (k3 = 0), so Eq. (1) sums over the distinct
    # query terms, in the order of first occurrence so the float sum is reproducible.
    for term in dict.fromkeys(query_terms):
        f = tf.get(term, 0)
        if f == 0:
            continue
        if term not in doc_freqs:
            raise ValueError(f"no document frequency for term {term!r}")
        # Eq. (5): w = tf (k1 + 1) / (tf + K) * idf.
        score += f * (k1 + 1.0) / (f + K) * idf(n_docs, doc_freqs[term])
    return score


def rank(query, documents, k=10, k1=1.2, b=0.75):
    """Rank ``documents`` (a list of (doc_id, text)) for the query string.

    Returns at most k (doc_id, score) tuples, best first, ties broken by
    doc_id; documents with score 0 are left out."""
    if not _is_int(k) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    documents = list(documents)
    if not documents:
        raise ValueError("the collection is empty")
    # Index and query go through the same repository tokenizer.
    tokenized = [(doc_id, tokenize(text)) for doc_id, text in documents]
    n_docs = len(tokenized)
    # avgdl: mean length over the whole collection.
    avg_doc_len = sum(len(terms) for _, terms in tokenized) / n_docs
    # n(t): number of documents containing t (not the number of occurrences).
    doc_freqs = {}
    for _, terms in tokenized:
        for term in set(terms):
            doc_freqs[term] = doc_freqs.get(term, 0) + 1
    query_terms = tokenize(query)
    if avg_doc_len == 0.0 or not query_terms:
        return []
    scored = []
    for doc_id, terms in tokenized:
        s = bm25_score(query_terms, terms, doc_freqs, n_docs, avg_doc_len, k1, b)
        if s > 0.0:
            scored.append((doc_id, s))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:k]
