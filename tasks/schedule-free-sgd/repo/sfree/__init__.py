"""Small first-order optimisation toolkit on plain Python lists of floats:
vector helpers, test objectives and a schedule-free SGD optimiser."""
