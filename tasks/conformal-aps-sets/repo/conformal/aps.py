"""Split conformal prediction sets with Adaptive Prediction Sets (Romano, Sesia and Candes, NeurIPS 2020)."""
