"""The fuzzy simplicial set of UMAP (McInnes, Healy and Melville, "UMAP:
Uniform Manifold Approximation and Projection for Dimension Reduction", 2018).

Use the helpers in ``fuzzygraph.constants``, ``fuzzygraph.knn`` and
``fuzzygraph.sparse``.
"""

import math

import numpy as np
