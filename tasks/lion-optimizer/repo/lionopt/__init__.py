"""First-order optimizers on plain Python lists of floats: optimizer state,
argument checks and test objectives, and the Lion optimizer."""
