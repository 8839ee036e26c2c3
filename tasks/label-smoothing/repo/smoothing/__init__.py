"""Training objectives for classifiers, on plain Python lists."""
