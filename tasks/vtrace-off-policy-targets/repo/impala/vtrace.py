"""V-trace off-policy actor-critic targets (Espeholt et al., "IMPALA", ICML 2018)."""
