"""Ranking evaluation toolkit: graded relevance judgements and system scores
(``run``), tie grouping (``ties``) and the nDCG measure (``ndcg``)."""
