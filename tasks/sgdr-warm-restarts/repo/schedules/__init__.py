"""Learning-rate schedules and a tiny training loop for trying them out:
argument checks, SGD with momentum, a least-squares problem split into
mini-batches, and SGDR (cosine annealing with warm restarts)."""
