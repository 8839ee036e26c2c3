"""Fusion functions for hybrid retrieval (Bruch, Gai and Ingber, "An Analysis
of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023)."""
