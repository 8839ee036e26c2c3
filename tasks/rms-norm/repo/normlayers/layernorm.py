"""Layer normalisation (Ba, Kiros and Hinton, 2016), for comparison."""

import numpy as np

from normlayers.arrays import as_activations, as_vector, check_eps


def layer_norm(x, gain=None, bias=None, eps=1e-5):
    """Re-centre and re-scale over the last axis: (x - mean) / sqrt(var + eps) * gain + bias."""
    a = as_activations(x)
    check_eps(eps)
    d = a.shape[-1]
    g = np.ones(d) if gain is None else as_vector("gain", gain, d)
    mu = a.mean(axis=-1, keepdims=True)
    var = ((a - mu) ** 2).mean(axis=-1, keepdims=True)
    out = (a - mu) / np.sqrt(var + eps) * g
    if bias is not None:
        out = out + as_vector("bias", bias, d)
    return out
