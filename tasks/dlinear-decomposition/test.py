import unittest

import numpy as np

from recode_check import check, outcome

from ltsf.data import sliding_windows
from ltsf.dlinear import dlinear_forecast, moving_average, series_decomposition

DATA = {}


def setUpModule():
    """Windows of a 3-channel series with a trend, a period-12 season and noise; random head weights."""
    rng = np.random.default_rng(2023)
    t = np.arange(200, dtype=np.float64)
    series = np.stack([
        0.05 * t + np.sin(2 * np.pi * t / 12),
        -0.02 * t + 0.5 * np.cos(2 * np.pi * t / 24),
        np.sqrt(t + 1.0),
    ], axis=1) + 0.1 * rng.standard_normal((200, 3))
    inputs, targets = sliding_windows(series, 48, 12)
    DATA["x"] = inputs[::35]  # 5 windows [5, 48, 3]
    L, P, C = 48, 12, 3
    DATA["ws"] = rng.standard_normal((P, L)) / L
    DATA["bs"] = rng.standard_normal(P) * 0.1
    DATA["wt"] = rng.standard_normal((P, L)) / L
    DATA["bt"] = rng.standard_normal(P) * 0.1
    DATA["ws_ind"] = rng.standard_normal((C, P, L)) / L
    DATA["bs_ind"] = rng.standard_normal((C, P)) * 0.1
    DATA["wt_ind"] = rng.standard_normal((C, P, L)) / L
    DATA["bt_ind"] = rng.standard_normal((C, P)) * 0.1


class TestMovingAverage(unittest.TestCase):
    def test_hand(self):
        x = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]).reshape(1, 7, 1)
        # kernel 3: one copy of each end value is padded, so the first mean is (1 + 1 + 2) / 3.
        check(self, "ma_hand_k3", moving_average(x, 3), rtol=1e-12)
        check(self, "ma_hand_k5", moving_average(x, 5), rtol=1e-12)

    def test_default_kernel(self):
        out = moving_average(DATA["x"])
        self.assertEqual(out.shape, DATA["x"].shape)
        check(self, "ma_default", out, rtol=1e-10, atol=1e-12)

    def test_long_kernel_and_identity(self):
        x = DATA["x"][:2, :5, :]
        # A kernel longer than the series: the padded ends dominate.
        check(self, "ma_k9_len5", moving_average(x, 9), rtol=1e-10, atol=1e-12)
        check(self, "ma_k1", moving_average(x, 1), rtol=1e-12)
        check(self, "ma_list_input", moving_average([[[1.0, 0.0], [3.0, 2.0], [8.0, 4.0]]], 3), rtol=1e-12)

    def test_errors(self):
        kernels = (3, 0, 2, 7, 24, -3, 11, 2.0, True, 1)
        check(self, "ma_kernels", [outcome(moving_average, DATA["x"], k) for k in kernels], rtol=1e-10, atol=1e-12)
        arrays = (np.arange(24.0).reshape(2, 4, 3), np.ones((48, 3)), DATA["x"][:1, :10, :])
        check(self, "ma_dims", [outcome(moving_average, a, 5) for a in arrays], rtol=1e-10, atol=1e-12)
        check(self, "ma_constant", moving_average(np.full((1, 4, 2), 2.5), 7), rtol=1e-12)


class TestDecomposition(unittest.TestCase):
    def test_components(self):
        seasonal, trend = series_decomposition(DATA["x"], 13)
        check(self, "dec_k13_seasonal", seasonal, rtol=1e-10, atol=1e-12)
        check(self, "dec_k13_trend", trend, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(seasonal + trend, DATA["x"], rtol=1e-12, atol=1e-12)

    def test_default_kernel(self):
        seasonal, trend = series_decomposition(DATA["x"])
        check(self, "dec_default_seasonal", seasonal, rtol=1e-10, atol=1e-12)
        check(self, "dec_default_trend", trend, rtol=1e-10, atol=1e-12)


class TestForecast(unittest.TestCase):
    def test_shared_heads(self):
        d = DATA
        out = dlinear_forecast(d["x"], d["ws"], d["bs"], d["wt"], d["bt"])
        self.assertEqual(out.shape, (5, 12, 3))
        check(self, "fc_shared_default", out, rtol=1e-10, atol=1e-12)
        check(self, "fc_shared_k7", dlinear_forecast(d["x"], d["ws"], d["bs"], d["wt"], d["bt"], kernel_size=7), rtol=1e-10, atol=1e-12)

    def test_individual_heads(self):
        d = DATA
        out = dlinear_forecast(d["x"], d["ws_ind"], d["bs_ind"], d["wt_ind"], d["bt_ind"], kernel_size=25)
        check(self, "fc_individual", out, rtol=1e-10, atol=1e-12)
        # Equal seasonal and trend heads make the decomposition cancel out: one linear map of the raw input.
        same = dlinear_forecast(d["x"], d["ws"], d["bs"], d["ws"], d["bs"], kernel_size=25)
        check(self, "fc_equal_heads", same, rtol=1e-10, atol=1e-12)

    def test_errors(self):
        d = DATA
        tol = {"rtol": 1e-10, "atol": 1e-12}
        weights = (d["ws"][::-1].copy(), d["ws"][:, :40], 0.5 * d["ws"])
        check(self, "fc_lengths", [outcome(dlinear_forecast, d["x"], w, d["bs"], d["wt"], d["bt"]) for w in weights], **tol)
        heads = (
            (d["ws_ind"][::-1].copy(), d["bs_ind"][::-1].copy()),
            (d["ws_ind"][:2], d["bs_ind"][:2]),
            (2.0 * d["ws_ind"], d["bs_ind"]),
        )
        check(
            self,
            "fc_channels",
            [outcome(dlinear_forecast, d["x"], w, b, d["wt_ind"], d["bt_ind"]) for w, b in heads],
            **tol,
        )
        check(
            self,
            "fc_kernels",
            [outcome(dlinear_forecast, d["x"], d["ws"], d["bs"], d["wt"], d["bt"], kernel_size=k) for k in (5, 4, 13)],
            **tol,
        )
        weights = (d["wt"], d["ws"][0], 2.0 * d["ws"])
        check(self, "fc_weight_dims", [outcome(dlinear_forecast, d["x"], w, d["bs"], d["wt"], d["bt"]) for w in weights], **tol)
        one = dlinear_forecast(np.arange(6.0).reshape(1, 6, 1), np.eye(6)[:2], np.zeros(2), np.eye(6)[-2:], np.ones(2), 3)
        check(self, "fc_hand", one, rtol=1e-12)
