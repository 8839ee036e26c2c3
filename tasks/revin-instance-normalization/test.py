import unittest

import numpy as np

from recode_check import check, outcome

from tsnorm.models import LinearForecaster
from tsnorm.revin import RevIN, instance_statistics


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        """Windows of 3 channels on very different scales and levels, and a toy forecaster."""
        rng = np.random.default_rng(2022)
        B, L, C, P = 4, 36, 3, 12
        level = np.array([100.0, -5.0, 0.0])
        scale = np.array([20.0, 0.5, 3.0])
        drift = rng.standard_normal((B, 1, C)) * scale
        cls.x = level + drift + scale * np.cumsum(rng.standard_normal((B, L, C)), axis=1) / np.sqrt(L)
        cls.model = LinearForecaster(rng.standard_normal((P, L)) / L, rng.standard_normal(P) * 0.1)
        cls.gamma = np.array([2.0, 0.5, -1.0])
        cls.beta = np.array([0.1, -0.2, 0.3])


class TestStatistics(Fixture):
    def test_hand(self):
        x = np.array([[[1.0, 2.0], [2.0, 2.0], [3.0, 2.0], [6.0, 2.0]]])  # one instance, 4 steps, 2 channels
        mean, stdev = instance_statistics(x)
        self.assertEqual(mean.shape, (1, 1, 2))
        check(self, "stats_hand_mean", mean, rtol=1e-12)
        # Channel 1 is constant: its stdev is sqrt(0 + eps).
        check(self, "stats_hand_stdev", stdev, rtol=1e-12)
        check(self, "stats_hand_eps0", instance_statistics(x, eps=0.0)[1], rtol=1e-12)

    def test_random(self):
        mean, stdev = instance_statistics(self.x)
        check(self, "stats_random_mean", mean, rtol=1e-10)
        check(self, "stats_random_stdev", stdev, rtol=1e-10)
        check(self, "stats_random_eps0.5", instance_statistics(self.x, 0.5)[1], rtol=1e-10)
        check(self, "stats_errors", [outcome(instance_statistics, self.x[:2, ::2]), outcome(instance_statistics, self.x[0]),
                                     outcome(instance_statistics, self.x, 0.25), outcome(instance_statistics, self.x, -1.0),
                                     outcome(instance_statistics, self.x[1:, 3:9], 0.0)], rtol=1e-10)


class TestNormalize(Fixture):
    def test_without_affine(self):
        rev = RevIN(3, affine=False)
        check(self, "init_no_affine", [rev.affine_weight, rev.affine_bias, rev.mean, rev.stdev])
        out = rev.normalize(self.x)
        check(self, "norm_plain", out, rtol=1e-10, atol=1e-12)
        check(self, "norm_stored_stats", [rev.mean, rev.stdev], rtol=1e-10)

    def test_with_affine(self):
        rev = RevIN(3)
        check(self, "init_affine", [rev.affine_weight, rev.affine_bias])
        check(self, "norm_identity_affine", rev.normalize(self.x), rtol=1e-10, atol=1e-12)
        rev.affine_weight = self.gamma.copy()
        rev.affine_bias = self.beta.copy()
        check(self, "norm_affine", rev.normalize(self.x), rtol=1e-10, atol=1e-12)

    def test_errors(self):
        rev = RevIN(3)
        check(self, "norm_wrong_channels", [outcome(rev.normalize, self.x[:, :10, :]),
                                            outcome(rev.normalize, self.x[:, :, :2]),
                                            outcome(RevIN(3, affine=False).normalize, self.x[1:, 5:, :]),
                                            outcome(RevIN(3, affine=False).normalize, self.x[:, :, :2])], rtol=1e-10, atol=1e-12)

        def made(*args, **kwargs):
            m = RevIN(*args, **kwargs)
            return [m.num_features, m.eps, m.affine, m.affine_weight, m.affine_bias, m.mean]

        check(self, "init_errors", [outcome(made, 2, eps=0.01), outcome(made, 0), outcome(made, 5, affine=False),
                                    outcome(made, 3, eps=-1e-5), outcome(made, 1, eps=0.0)])
        check(self, "norm_constant_series", RevIN(1, eps=1e-4).normalize(np.full((2, 5, 1), 7.0)), rtol=1e-12)


class TestDenormalize(Fixture):
    def test_round_trip(self):
        rev = RevIN(3, eps=0.1)
        rev.affine_weight = self.gamma.copy()
        rev.affine_bias = self.beta.copy()
        back = rev.denormalize(rev.normalize(self.x))
        # Not exactly x: the denominator of the inverse affine map carries eps squared.
        check(self, "roundtrip_eps0.1", back, rtol=1e-10)
        rev = RevIN(3, affine=False)
        check(self, "roundtrip_plain", rev.denormalize(rev.normalize(self.x)), rtol=1e-10)

    def test_forecast_pipeline(self):
        rev = RevIN(3)
        rev.affine_weight = self.gamma.copy()
        rev.affine_bias = self.beta.copy()
        y = rev.denormalize(self.model(rev.normalize(self.x)))
        self.assertEqual(y.shape, (4, 12, 3))
        check(self, "pipeline_affine", y, rtol=1e-10)
        rev = RevIN(3, eps=1e-3, affine=False)
        check(self, "pipeline_plain", rev.denormalize(self.model(rev.normalize(self.x))), rtol=1e-10)

    def test_errors(self):
        rev = RevIN(3)
        done = RevIN(3, affine=False)
        done.normalize(self.x[:, 4:, :])
        check(self, "denorm_before_normalize", [outcome(done.denormalize, self.x[:, :5]), outcome(rev.denormalize, self.x),
                                                outcome(done.denormalize, np.ones((4, 2, 3)))], rtol=1e-10)
        rev.normalize(self.x)
        check(self, "denorm_mismatch", [outcome(rev.denormalize, self.x[:, :7]), outcome(rev.denormalize, self.x[:, :, :1]),
                                        outcome(rev.denormalize, np.zeros((4, 1, 3))), outcome(rev.denormalize, self.x[:2])],
              rtol=1e-10)
        # Statistics come from the last normalize call.
        rev.normalize(self.x[:, ::-1, :] * 2.0)
        check(self, "denorm_latest_stats", rev.denormalize(np.zeros((4, 2, 3))), rtol=1e-10)
