"""Dynamic Tanh (Zhu, Chen, He, LeCun and Liu, "Transformers without
Normalization", CVPR 2025): an element-wise replacement for layer
normalisation, DyT(x) = weight * tanh(alpha * x) + bias."""

from dyt.modules import LayerNorm, LayerNorm2d, Module
from dyt.tensor import check_finite, check_positive_int, map_at_depth, map_scalars, map_vectors, shape_of, tanh


def dynamic_tanh(x, alpha, weight, bias, channels_last=True):
    """DyT(x) = weight * tanh(alpha * x) + bias, weight and bias per channel."""
    check_finite("alpha", alpha)
    c = len(weight)
    if c == 0 or len(bias) != c:
        raise ValueError("weight and bias must be non-empty and of the same length")
    s = shape_of(x)
    if channels_last:
        # Sec. 4, Eq. (2): DyT(x) = gamma * tanh(alpha x) + beta, with gamma and
        # beta per channel, broadcast over every position: channels are the last axis.
        if len(s) < 1 or s[-1] != c:
            raise ValueError(f"last axis of x has {s[-1:] or 'no'} entries, expected {c}")
        return map_vectors(x, lambda v: [w * tanh(alpha * a) + b for a, w, b in zip(v, weight, bias)])
    # Channels-first feature maps (..., C, H, W), as after a convolution: the
    # channel is axis -3, so gamma_c and beta_c apply to a whole H x W map
    # (the paper leaves the layout out; its code broadcasts weight[:, None, None]).
    if len(s) < 3 or s[-3] != c:
        raise ValueError(f"axis -3 of x must have {c} entries, got shape {s}")

    def per_channel(ch, plane):
        w, b = weight[ch], bias[ch]
        return map_scalars(plane, lambda a: w * tanh(alpha * a) + b)

    return map_at_depth(x, len(s) - 2, per_channel)


class DynamicTanh(Module):
    """DyT layer: a learnable scalar alpha and per-channel weight and bias."""

    def __init__(self, normalized_shape, channels_last=True, alpha_init_value=0.5):
        super().__init__()
        check_positive_int("normalized_shape", normalized_shape)
        check_finite("alpha_init_value", alpha_init_value)
        if alpha_init_value <= 0:
            raise ValueError("alpha_init_value must be positive")
        self.normalized_shape = normalized_shape
        self.channels_last = channels_last
        self.alpha_init_value = alpha_init_value
        # Sec. 4: alpha is ONE learnable scalar shared by all channels, initialised
        # to alpha_0 (default 0.5, Sec. 7); gamma starts at ones and beta at zeros,
        # as the affine parameters of a normalisation layer do.
        self.register_parameter("alpha", float(alpha_init_value))
        self.register_parameter("weight", [1.0] * normalized_shape)
        self.register_parameter("bias", [0.0] * normalized_shape)

    def forward(self, x):
        return dynamic_tanh(x, self.alpha, self.weight, self.bias, self.channels_last)


def convert_ln_to_dyt(module, alpha_init_value=0.5):
    """Replace every LayerNorm in a module tree by a DynamicTanh of the same width."""
    # Sec. 4: DyT is a drop-in replacement: each normalisation layer becomes a
    # DyT layer with the same number of channels; nothing else in the network
    # changes. LayerNorm2d normalises channels-first maps, so its DyT is
    # channels-first too (LayerNorm2d is a LayerNorm subclass: test for it first).
    out = module
    if isinstance(module, LayerNorm):
        out = DynamicTanh(
            module.normalized_shape,
            channels_last=not isinstance(module, LayerNorm2d),
            alpha_init_value=alpha_init_value,
        )
    # Children are converted recursively and keep their names and order.
    for name, child in module.named_children():
        out.add_module(name, convert_ln_to_dyt(child, alpha_init_value))
    return out
