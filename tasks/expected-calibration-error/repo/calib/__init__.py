"""Calibration metrics for classifiers: how well predicted confidences match accuracy."""
