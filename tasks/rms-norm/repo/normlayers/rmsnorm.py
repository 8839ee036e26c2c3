"""Root Mean Square Layer Normalization (Zhang and Sennrich, NeurIPS 2019),
with partial RMSNorm (pRMSNorm). Write root_mean_square, rms_norm, RMSNorm and
rms_norm_backward here (see instruction.md)."""

import math

import numpy as np

from normlayers.arrays import as_activations, as_vector, check_eps, check_fraction
