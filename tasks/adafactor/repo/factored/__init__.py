"""Memory-light adaptive optimisation with numpy: helpers, optimizer state,
a matrix regression problem, and the Adafactor optimizer."""
