"""Entropy-regularised optimal transport between discrete histograms, in
plain Python: input validation (``validation``), log-domain numerics
(``numerics``) and the Sinkhorn solvers (``sinkhorn``)."""
