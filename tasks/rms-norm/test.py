import unittest

import numpy as np

from recode_check import check, outcome

from normlayers.rmsnorm import RMSNorm, rms_norm, rms_norm_backward, root_mean_square

DATA = {}


def setUpModule():
    rng = np.random.default_rng(20191010)
    DATA["x"] = np.round(rng.normal(0.5, 1.5, size=(4, 8)), 4)
    DATA["x16"] = np.round(rng.normal(0.0, 2.0, size=(3, 16)), 4)
    DATA["x3d"] = np.round(rng.normal(-0.3, 1.0, size=(2, 3, 6)), 4)
    DATA["gain8"] = np.round(rng.uniform(0.5, 1.5, size=8), 4)
    DATA["bias8"] = np.round(rng.normal(0.0, 0.2, size=8), 4)
    DATA["gain16"] = np.round(rng.uniform(0.5, 1.5, size=16), 4)
    DATA["go"] = np.round(rng.normal(0.0, 1.0, size=(4, 8)), 4)
    DATA["go16"] = np.round(rng.normal(0.0, 1.0, size=(3, 16)), 4)
    # Tiny activations: RMS of order 1e-4, where the epsilon's placement shows.
    DATA["tiny"] = np.round(rng.normal(0.0, 1e-4, size=(2, 8)), 8)


def numerical_grad(f, x, h=1e-6):
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        g[i] = (f(xp) - f(xm)) / (2 * h)
    return g


class TestRootMeanSquare(unittest.TestCase):
    def test_full(self):
        check(self, "rms_full", np.asarray(root_mean_square(DATA["x"])), rtol=1e-12)
        check(self, "rms_vector", np.asarray(root_mean_square([3.0, -4.0])), rtol=1e-12)
        check(self, "rms_3d", np.asarray(root_mean_square(DATA["x3d"])), rtol=1e-12)

    def test_partial(self):
        # n = 16, p = 0.25: k = 4; n = 20, p = 0.0625: k = ceil(1.25) = 2; n = 8, p = 0.3: k = ceil(2.4) = 3.
        check(self, "rms_p025", np.asarray(root_mean_square(DATA["x16"], p=0.25)), rtol=1e-12)
        row = np.arange(1.0, 21.0)
        check(self, "rms_p00625_ceil", np.asarray(root_mean_square(row, p=0.0625)), rtol=1e-12)
        check(self, "rms_p03", np.asarray(root_mean_square(DATA["x"], p=0.3)), rtol=1e-12)
        check(self, "rms_p1", np.asarray(root_mean_square(DATA["x"], p=1.0)), rtol=1e-12)

    def test_errors(self):
        check(self, "rms_p_outcomes", [outcome(root_mean_square, DATA["x"], p=p) for p in (0.5, 0.0, -0.5, 0.75, 1.5, float("nan"), True, 0.125)],
              rtol=1e-12)
        check(self, "rms_x_outcomes", [outcome(root_mean_square, [[1.0, 2.0], [0.5, -0.5]]), outcome(root_mean_square, np.zeros((3, 0))),
                                        outcome(root_mean_square, [2.0, -1.0, 0.5]), outcome(root_mean_square, [1.0, float("inf")])], rtol=1e-12)
        check(self, "rms_zero", np.asarray(root_mean_square(np.zeros((2, 5)))), rtol=1e-12)


class TestRMSNormFunction(unittest.TestCase):
    def test_values(self):
        check(self, "norm_plain", rms_norm(DATA["x"]), rtol=1e-7)
        check(self, "norm_gain", rms_norm(DATA["x"], DATA["gain8"]), rtol=1e-7)
        check(self, "norm_gain_bias", rms_norm(DATA["x"], DATA["gain8"], DATA["bias8"]), rtol=1e-7, atol=1e-12)
        check(self, "norm_3d", rms_norm(DATA["x3d"], np.linspace(0.5, 1.5, 6)), rtol=1e-7)

    def test_partial(self):
        out = rms_norm(DATA["x16"], DATA["gain16"], p=0.25)
        self.assertEqual(out.shape, (3, 16))
        check(self, "norm_p025", out, rtol=1e-7)
        check(self, "norm_p00625", rms_norm(DATA["x16"], p=0.0625), rtol=1e-7)

    def test_invariance_and_zero(self):
        a = rms_norm(DATA["x"], DATA["gain8"])
        b = rms_norm(7.5 * DATA["x"], DATA["gain8"])
        self.assertTrue(np.allclose(a, b, rtol=1e-6))
        c = rms_norm(-2.0 * DATA["x"], DATA["gain8"])
        self.assertTrue(np.allclose(a, -c, rtol=1e-6))
        check(self, "norm_zero_input", rms_norm(np.zeros((2, 4))), rtol=1e-12)

    def test_epsilon_placement(self):
        check(self, "norm_tiny_default_eps", rms_norm(DATA["tiny"]), rtol=1e-9)
        check(self, "norm_eps_025", rms_norm([[0.3, -0.4, 0.5, 0.2]], eps=0.25), rtol=1e-9)

    def test_errors(self):
        check(self, "norm_outcomes", [
            outcome(rms_norm, DATA["x"], gain=np.full(8, 0.5)),
            outcome(rms_norm, DATA["x"], gain=np.ones(7)),
            outcome(rms_norm, DATA["x"], bias=np.ones(9)),
            outcome(rms_norm, DATA["x"], bias=np.full(8, -0.25)),
            outcome(rms_norm, DATA["x"], eps=-1e-8),
            outcome(rms_norm, DATA["x"], eps=1e-3),
            outcome(rms_norm, DATA["x"], p=2.0),
            outcome(rms_norm, DATA["x"], p=0.5),
        ], rtol=1e-7, atol=1e-12)
        check(self, "norm_eps0", rms_norm([[1.0, 2.0, 2.0]], eps=0.0), rtol=1e-12)


class TestRMSNormLayer(unittest.TestCase):
    def test_init(self):
        layer = RMSNorm(6)
        check(self, "layer_init", [layer.d, layer.p, layer.eps, layer.scale, layer.offset])
        with_bias = RMSNorm(4, p=0.5, eps=1e-6, bias=True)
        check(self, "layer_init_bias", [with_bias.d, with_bias.p, with_bias.eps, with_bias.scale, with_bias.offset])

    def test_forward(self):
        layer = RMSNorm(6, bias=True)
        layer.scale = np.linspace(0.5, 2.0, 6)
        layer.offset = np.full(6, 0.1)
        check(self, "layer_forward_3d", layer(DATA["x3d"]), rtol=1e-7)
        part = RMSNorm(16, p=0.0625)
        check(self, "layer_partial", part(DATA["x16"]), rtol=1e-7)

    def test_layer_epsilon(self):
        check(self, "layer_eps_tiny", RMSNorm(8)(DATA["tiny"]), rtol=1e-9)

    def test_errors(self):
        check(self, "layer_d_outcomes", [outcome(lambda d: RMSNorm(d).scale, d) for d in (3, 0, -2, 5, 3.0, True, 1)])
        check(self, "layer_p_outcomes", [outcome(lambda p: RMSNorm(4, p=p).p, p) for p in (0.5, 0.0, 1.0)])
        layer = RMSNorm(4)
        check(self, "layer_width_outcomes", [outcome(layer, np.full((2, 4), -2.0)), outcome(layer, np.ones((2, 5))),
                                              outcome(layer, [[0.5, -1.0, 2.0, 3.0]])], rtol=1e-7)
        check(self, "layer_vector", layer([1.0, -1.0, 2.0, 0.0]), rtol=1e-7)
        check(self, "layer_width_one", RMSNorm(1)([[3.0], [-0.5]]), rtol=1e-7)


class TestBackward(unittest.TestCase):
    def test_full(self):
        gx, gg, gb = rms_norm_backward(DATA["x"], DATA["go"], DATA["gain8"])
        check(self, "bwd_grad_x", gx, rtol=1e-7, atol=1e-8)
        check(self, "bwd_grad_gain", gg, rtol=1e-7, atol=1e-8)
        check(self, "bwd_grad_bias", gb, rtol=1e-12, atol=1e-12)
        # Rows whose RMS is below one (eps 0, so the epsilon convention does not matter).
        check(self, "bwd_small_rows", rms_norm_backward(0.3 * DATA["x"], DATA["go"], DATA["gain8"], eps=0.0)[0], rtol=1e-9, atol=1e-12)

    def test_partial(self):
        gx, gg, gb = rms_norm_backward(DATA["x16"], DATA["go16"], DATA["gain16"], p=0.25)
        check(self, "bwd_p025_x", gx, rtol=1e-7, atol=1e-8)
        check(self, "bwd_p025_gain", gg, rtol=1e-7, atol=1e-8)

    def test_matches_finite_differences(self):
        # eps = 0: the numerical gradient of the forward pass, whatever the epsilon convention.
        x, go, g = DATA["x"][:2], DATA["go"][:2], DATA["gain8"]
        for p in (None, 0.5):
            gx, _, _ = rms_norm_backward(x, go, g, eps=0.0, p=p)
            num = numerical_grad(lambda z: float(np.sum(rms_norm(z, g, eps=0.0, p=p) * go)), x.copy())
            self.assertTrue(np.allclose(gx, num, rtol=1e-5, atol=1e-7))
        check(self, "bwd_eps0_p05", rms_norm_backward(x, go, g, eps=0.0, p=0.5)[0], rtol=1e-9, atol=1e-12)

    def test_backward_epsilon(self):
        x, go, g = DATA["x"][:2], DATA["go"][:2], DATA["gain8"]
        check(self, "bwd_eps1e-3_p05", rms_norm_backward(x, go, g, eps=1e-3, p=0.5)[0], rtol=1e-9, atol=1e-12)

    def test_errors(self):
        check(self, "bwd_outcomes", [
            outcome(rms_norm_backward, DATA["x"][:2], DATA["go"][:2]),
            outcome(rms_norm_backward, DATA["x"], DATA["go"][:, :7]),
            outcome(rms_norm_backward, DATA["x"], DATA["go"][:1]),
            outcome(rms_norm_backward, DATA["x"], DATA["go"], gain=np.full(8, 2.0)),
            outcome(rms_norm_backward, DATA["x"], DATA["go"], gain=np.ones(3)),
        ], rtol=1e-7, atol=1e-8)
        gx, gg, gb = rms_norm_backward(np.zeros((1, 4)), np.ones((1, 4)))
        check(self, "bwd_zero_input", [gx, gg, gb], rtol=1e-9, atol=1e-12)
