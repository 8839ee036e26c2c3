"""Preference optimisation objectives for language models, on plain Python lists."""
