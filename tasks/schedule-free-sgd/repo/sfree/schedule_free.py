"""Schedule-free SGD (Defazio et al., "The Road Less Scheduled", NeurIPS 2024)."""

from sfree.vectors import axpy, check_same_length, check_unit_interval, lerp
