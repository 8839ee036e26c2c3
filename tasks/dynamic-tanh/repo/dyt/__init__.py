"""A tiny module system on nested Python lists: parameters, state dicts,
LayerNorm layers and the normalisation-free Dynamic Tanh layer."""
