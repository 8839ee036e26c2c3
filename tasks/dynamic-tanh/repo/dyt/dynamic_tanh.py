"""Dynamic Tanh (Zhu, Chen, He, LeCun and Liu, "Transformers without
Normalization", CVPR 2025): an element-wise replacement for layer
normalisation. Write dynamic_tanh, DynamicTanh and convert_ln_to_dyt here
(see instruction.md)."""

from dyt.modules import LayerNorm, LayerNorm2d, Module
from dyt.tensor import check_finite, check_positive_int, map_at_depth, map_scalars, map_vectors, shape_of, tanh
