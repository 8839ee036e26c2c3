"""Normalisation layers for time-series forecasters, with a toy linear forecaster."""
