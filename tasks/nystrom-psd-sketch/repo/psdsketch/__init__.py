"""Streaming low-rank approximation of positive-semidefinite matrices with a
Nystrom sketch: random test matrices (``testmatrix``), small linear-algebra
helpers (``linalg``) and the sketch itself (``nystrom``)."""
