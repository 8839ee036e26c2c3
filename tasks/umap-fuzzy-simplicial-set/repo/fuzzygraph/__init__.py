"""The graph-construction stage of UMAP: exact nearest neighbours (``knn``),
tuning constants (``constants``), a dense-matrix helper (``sparse``) and the
fuzzy simplicial set itself (``fuzzy``)."""
