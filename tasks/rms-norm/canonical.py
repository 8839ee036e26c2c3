"""Root Mean Square Layer Normalization (Zhang and Sennrich, NeurIPS 2019),
with partial RMSNorm (pRMSNorm)."""

import math

import numpy as np

from normlayers.arrays import as_activations, as_vector, check_eps, check_fraction


def _partial_size(n, p):
    # Sec. 3 (pRMSNorm), Eq. (8): the RMS is estimated from the first k = ceil(n * p) inputs.
    check_fraction(p)
    return n if p is None else math.ceil(n * p)


def root_mean_square(x, p=None):
    """RMS of the last axis, from the first ceil(n p) entries when p is given."""
    a = as_activations(x)
    k = _partial_size(a.shape[-1], p)
    # Eq. (4): RMS(a) = sqrt(1/n sum_i a_i^2); Eq. (8) for pRMS with n -> k and
    # only a_1..a_k. Note 1/n (a mean), not a sum and not a variance (no centring).
    return np.sqrt(np.mean(a[..., :k] ** 2, axis=-1))


def rms_norm(x, gain=None, bias=None, eps=1e-8, p=None):
    """RMSNorm over the last axis: x / (RMS(x) + eps) * gain (+ bias)."""
    a = as_activations(x)
    check_eps(eps)
    d = a.shape[-1]
    g = np.ones(d) if gain is None else as_vector("gain", gain, d)
    rms = root_mean_square(a, p)[..., None]
    # Eq. (4): abar_i = a_i / RMS(a) * g_i. The paper has no epsilon; the
    # authors' implementation adds eps to the RMS itself, outside the square
    # root: x / (RMS + eps) (many later libraries use 1 / sqrt(mean + eps)).
    out = a / (rms + eps) * g
    # The bias of LayerNorm is optional and off by default: RMSNorm drops
    # re-centring (Sec. 2).
    if bias is not None:
        out = out + as_vector("bias", bias, d)
    return out


class RMSNorm:
    """An RMSNorm layer with a gain (``scale``, ones) and an optional bias (``offset``, zeros)."""

    def __init__(self, d, p=None, eps=1e-8, bias=False):
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            raise ValueError(f"d must be a positive int, got {d!r}")
        check_fraction(p)
        check_eps(eps)
        self.d, self.p, self.eps = d, p, eps
        # The gain g starts at ones; the bias exists only when asked for and
        # starts at zeros (the authors' layer: bias disabled by default).
        self.scale = np.ones(d)
        self.offset = np.zeros(d) if bias else None

    def __call__(self, x):
        a = as_activations(x)
        if a.shape[-1] != self.d:
            raise ValueError(f"last axis has {a.shape[-1]} entries, the layer has {self.d}")
        return rms_norm(a, self.scale, self.offset, self.eps, self.p)


def rms_norm_backward(x, grad_output, gain=None, eps=1e-8, p=None):
    """Gradients of rms_norm (with bias) w.r.t. x, the gain and the bias."""
    a = as_activations(x)
    go = np.asarray(grad_output, dtype=np.float64)
    if go.shape != a.shape:
        raise ValueError(f"grad_output has shape {go.shape}, x has {a.shape}")
    check_eps(eps)
    d = a.shape[-1]
    g = np.ones(d) if gain is None else as_vector("gain", gain, d)
    k = _partial_size(d, p)
    r = root_mean_square(a, p)[..., None]
    s = r + eps
    # Eq. (6): with y = g * x / s + b and s = RMS + eps,
    # dL/dg = sum over positions of dL/dy * x / s, dL/db = sum of dL/dy.
    lead = tuple(range(a.ndim - 1))
    grad_gain = (go * a / s).sum(axis=lead)
    grad_bias = go.sum(axis=lead)
    # Eq. (7): dL/dx_j = g_j dL/dy_j / s - [j < k] x_j / (k r s^2) * sum_i dL/dy_i g_i x_i,
    # the paper's R = (I - x x^T / (n RMS^2)) / RMS when eps = 0 and k = n. Only
    # the first k inputs enter the RMS. Where RMS = 0 the second term is 0.
    dot = (go * g * a).sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        coef = np.where(r > 0, dot / (k * r * s * s), 0.0)
    grad_x = go * g / s
    grad_x[..., :k] -= a[..., :k] * coef
    return grad_x, grad_gain, grad_bias
