import math
import random
import unittest

from recode_check import check, outcome

from dyt.dynamic_tanh import DynamicTanh, convert_ln_to_dyt, dynamic_tanh
from dyt.modules import LayerNorm, LayerNorm2d, Scale, Sequential


def rand_tensor(rng, shape, scale=2.0):
    if len(shape) == 1:
        return [round(rng.gauss(0.0, scale), 4) for _ in range(shape[0])]
    return [rand_tensor(rng, shape[1:], scale) for _ in range(shape[0])]


def describe(module, prefix="root"):
    """(path, class name, channels_last or None, width or None, alpha or None), depth first."""
    row = (
        prefix,
        type(module).__name__,
        getattr(module, "channels_last", None) if isinstance(module, DynamicTanh) else None,
        getattr(module, "normalized_shape", None),
        module.alpha if isinstance(module, DynamicTanh) else None,
    )
    out = [row]
    for name, child in module.named_children():
        out.extend(describe(child, prefix + "." + name))
    return out


# convert_ln_to_dyt changes the tree it is given: every test builds its own.
def make_vit():
    return Sequential(LayerNorm(4), Scale(2.0), Sequential(LayerNorm(4), Scale(0.5), LayerNorm(4)), LayerNorm(4))


def make_convnet():
    return Sequential(Scale(1.5), LayerNorm2d(3), Sequential(Scale(-1.0), LayerNorm2d(3)))


WEIGHT4 = [1.5, -0.5, 0.25, 2.0]
BIAS4 = [0.1, 0.0, -0.3, 0.05]


class TestFunctional(unittest.TestCase):
    def test_channels_last(self):
        rng = random.Random(11)
        check(self, "fn_vector", dynamic_tanh([0.3, -1.2, 2.5, 0.0], 0.8, WEIGHT4, BIAS4), rtol=1e-12, atol=1e-15)
        check(self, "fn_tokens", dynamic_tanh(rand_tensor(rng, (3, 4)), 0.5, WEIGHT4, BIAS4), rtol=1e-12, atol=1e-15)
        check(self, "fn_batch", dynamic_tanh(rand_tensor(rng, (2, 3, 4)), 1.3, WEIGHT4, BIAS4), rtol=1e-12, atol=1e-15)
        # tanh squashes extreme activations to weight * (+-1) + bias.
        check(self, "fn_saturates", dynamic_tanh([1e6, -1e6, 40.0, -3e3], 0.5, WEIGHT4, BIAS4), rtol=1e-12, atol=1e-15)

    def test_channels_first(self):
        rng = random.Random(5)
        w3, b3 = [2.0, -1.0, 0.5], [0.0, 0.25, -0.5]
        x = rand_tensor(rng, (2, 3, 2, 2))
        out = dynamic_tanh(x, 0.7, w3, b3, channels_last=False)
        check(self, "fn_channels_first", out, rtol=1e-12, atol=1e-15)
        check(self, "fn_chw", dynamic_tanh(rand_tensor(rng, (3, 2, 3)), 0.4, w3, b3, channels_last=False), rtol=1e-12, atol=1e-15)
        # A map whose last axis happens to equal C is still read channels-first.
        check(self, "fn_cf_square", dynamic_tanh(rand_tensor(rng, (3, 3, 3)), 1.1, w3, b3, channels_last=False), rtol=1e-12, atol=1e-15)

    def test_errors_and_alpha_zero(self):
        check(self, "fn_alpha_zero", dynamic_tanh([[5.0, -5.0, 1.0, 2.0]], 0.0, WEIGHT4, BIAS4), rtol=1e-12, atol=1e-15)
        check(self, "fn_errors", [outcome(dynamic_tanh, [0.2, -1.0, 3.0, 0.5], 0.5, WEIGHT4, BIAS4),
                                  outcome(dynamic_tanh, [1.0, 2.0, 3.0], 0.5, WEIGHT4, BIAS4),
                                  outcome(dynamic_tanh, [1.0, 2.0, 3.0, 4.0], 0.5, WEIGHT4, BIAS4[:3]),
                                  outcome(dynamic_tanh, [[1.0, 2.0, 3.0, 4.0], [-0.5, 0.0, 0.5, 1.5]], 0.9, WEIGHT4, BIAS4),
                                  outcome(dynamic_tanh, [1.0, 2.0, 3.0, 4.0], float("nan"), WEIGHT4, BIAS4),
                                  outcome(dynamic_tanh, [[1.0, 2.0, 3.0, 4.0]], 0.5, WEIGHT4, BIAS4, channels_last=False),
                                  outcome(dynamic_tanh, [[[1.0, 2.0]], [[3.0, -4.0]]], 0.6, [1.0, 2.0], [0.0, -1.0], channels_last=False),
                                  outcome(dynamic_tanh, [[1.0, 2.0], [3.0]], 0.5, [1.0, 1.0], [0.0, 0.0]),
                                  outcome(dynamic_tanh, [[1.0, 2.0], [3.0, 0.1]], -2, [1.0, 1.0], [0.0, 0.0])],
              rtol=1e-12, atol=1e-15)


class TestDynamicTanh(unittest.TestCase):
    def test_initial_parameters(self):
        layer = DynamicTanh(4)
        check(self, "init_state", layer.state_dict())
        check(self, "init_param_names", [n for n, _ in layer.named_parameters()])
        check(self, "init_state_alpha08_cf", DynamicTanh(3, channels_last=False, alpha_init_value=0.8).state_dict())
        check(self, "default_forward", layer([0.5, -2.0, 4.0, 0.0]), rtol=1e-12, atol=1e-15)

    def test_forward_after_load(self):
        rng = random.Random(3)
        layer = DynamicTanh(4, alpha_init_value=1.5)
        layer.load_state_dict({"alpha": 0.9, "weight": list(WEIGHT4), "bias": list(BIAS4)})
        check(self, "layer_loaded", layer(rand_tensor(rng, (2, 4))), rtol=1e-12, atol=1e-15)
        cf = DynamicTanh(2, channels_last=False)
        cf.load_state_dict({"alpha": 0.3, "weight": [3.0, -2.0], "bias": [1.0, 0.5]})
        check(self, "layer_loaded_cf", cf(rand_tensor(rng, (1, 2, 2, 3))), rtol=1e-12, atol=1e-15)

    def test_invalid(self):
        check(self, "init_shape_mixed", [outcome(lambda n: DynamicTanh(n).state_dict(), n) for n in (3, 0, -3, 1, 2.5, True, 6)])
        check(self, "init_alpha_mixed", [outcome(lambda a: DynamicTanh(4, alpha_init_value=a).state_dict(), a)
                                         for a in (1.2, 0.0, -0.5, 0.05, float("inf"), 3)])
        layer = DynamicTanh(4)
        check(self, "layer_wrong_width", [outcome(layer, [0.1, 0.2, -0.4, 1.0]), outcome(layer, [1.0, 2.0]),
                                          outcome(layer, [[2.0, 0.0, -1.0, 0.5]])], rtol=1e-12, atol=1e-15)
        check(self, "width_one", DynamicTanh(1, alpha_init_value=2.0)([[0.25], [-0.75]]), rtol=1e-12, atol=1e-15)


class TestConvert(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = random.Random(21)
        cls.tokens = rand_tensor(rng, (3, 4))
        cls.maps = rand_tensor(rng, (2, 3, 2, 2))

    def test_structure(self):
        converted = convert_ln_to_dyt(make_vit())
        check(self, "convert_structure", describe(converted))
        check(self, "convert_state_keys", sorted(converted.state_dict()))
        check(self, "convert_structure_cnn", describe(convert_ln_to_dyt(make_convnet(), alpha_init_value=0.2)))

    def test_forward(self):
        converted = convert_ln_to_dyt(make_vit())
        check(self, "convert_forward", converted(self.tokens), rtol=1e-12, atol=1e-15)
        warm = convert_ln_to_dyt(make_vit(), alpha_init_value=1.2)
        check(self, "convert_forward_alpha", warm(self.tokens), rtol=1e-12, atol=1e-15)

    def test_channels_first_model(self):
        converted = convert_ln_to_dyt(make_convnet(), alpha_init_value=0.6)
        check(self, "convert_cnn_forward", converted(self.maps), rtol=1e-12, atol=1e-15)

    def test_root_layernorm(self):
        root = convert_ln_to_dyt(LayerNorm2d(5), alpha_init_value=0.3)
        check(self, "root_describe", describe(root))
        # A module without any normalisation layer passes through unchanged.
        plain = Sequential(Scale(3.0))
        check(self, "no_layernorm_same_object", convert_ln_to_dyt(plain) is plain)
        # Converting in place: the tree passed in holds the new layers afterwards.
        tree = make_vit()
        convert_ln_to_dyt(tree, alpha_init_value=0.9)
        check(self, "converted_in_place", describe(tree))
