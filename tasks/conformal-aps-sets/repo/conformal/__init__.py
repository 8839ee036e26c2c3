"""Split conformal prediction for classifiers: class ranking, validation, randomness, APS sets."""
