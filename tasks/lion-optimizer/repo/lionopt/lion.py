"""Lion, EvoLved Sign Momentum (Chen et al., "Symbolic Discovery of Optimization
Algorithms", NeurIPS 2023), on lists of floats."""

from lionopt.params import LionState, check_beta, check_non_negative, check_same_length
