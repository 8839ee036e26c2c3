"""First-order optimizers on plain Python lists of floats."""
