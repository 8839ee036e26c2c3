"""Normalisation layers for neural networks, in numpy."""
