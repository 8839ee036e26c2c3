"""Hybrid retrieval toolkit: candidate score lists from a lexical (BM25) and a
semantic (embedding cosine) retriever (``data``), ranking helpers
(``ranking``), statistics (``stats``) and fusion functions (``fusion``)."""
