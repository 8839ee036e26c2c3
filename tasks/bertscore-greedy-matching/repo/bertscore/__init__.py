"""Embedding-based text similarity: array and weighting helpers (``linalg``,
``weights``), a toy contextual encoder with example sentences (``toy``) and
BERTScore (``score``)."""
