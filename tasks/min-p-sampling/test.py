import math
import random
import unittest

from decoding.min_p import min_p_filter, min_p_sample, softmax_with_temperature
from decoding.vocab import TOY_LOGITS
from recode_check import check, outcome

NEG_INF = float("-inf")


class TestSoftmax(unittest.TestCase):
    def test_values(self):
        for t in (1.0, 0.5, 2.0):
            p = softmax_with_temperature(TOY_LOGITS, t)
            self.assertEqual(len(p), len(TOY_LOGITS))
            self.assertAlmostEqual(sum(p), 1.0, places=12)
            check(self, f"softmax_toy_T{t}", p, rtol=1e-9, atol=1e-15)
        check(self, "softmax_with_neg_inf", softmax_with_temperature([0.0, NEG_INF, 1.0], 1.0), rtol=1e-9, atol=1e-15)
        # the temperature defaults to 1
        check(self, "softmax_default_temperature", softmax_with_temperature([0.5, -1.0, 2.0]), rtol=1e-9, atol=1e-15)

    def test_large_logits_and_errors(self):
        p = softmax_with_temperature([1000.0, 999.0, 998.5, NEG_INF], 0.7)
        check(self, "softmax_large_logits", p, rtol=1e-9, atol=1e-15)
        temps = (0.8, 0, 0.0, 3.0, -1.0, float("inf"), 1e-3, float("nan"), "2.0", 1.7, None)
        check(self, "softmax_temperature_mixed", [outcome(softmax_with_temperature, [1.0, 2.0], t) for t in temps],
              rtol=1e-9, atol=1e-15)
        check(self, "softmax_empty", [outcome(softmax_with_temperature, [0.3, -0.2], 1.0),
                                      outcome(softmax_with_temperature, [], 1.0),
                                      outcome(softmax_with_temperature, [2.5], 1.0)], rtol=1e-9, atol=1e-15)
        # a +inf or NaN logit, or only -inf logits
        logits = ([0.0, 1.5, -2.0], [1.0, float("nan")], [float("inf"), 0.0], [NEG_INF, 4.0], [NEG_INF, NEG_INF], [7.0])
        check(self, "softmax_logits_mixed", [outcome(softmax_with_temperature, z, 1.0) for z in logits],
              rtol=1e-9, atol=1e-15)


class TestMinPFilter(unittest.TestCase):
    def test_relative_threshold(self):
        probs = [0.5, 0.25, 0.125, 0.0625, 0.0625]
        # threshold 0.25 * 0.5 = 0.125: a token exactly at the threshold stays
        check(self, "filter_relative_0.25", min_p_filter(probs, 0.25), rtol=1e-12, atol=0.0)
        check(self, "filter_relative_0.6", min_p_filter(probs, 0.6), rtol=1e-12, atol=0.0)

    def test_adapts_to_confidence(self):
        flat = softmax_with_temperature([0.2, 0.1, 0.0, -0.1, -0.2, -0.3], 1.0)
        peaked = softmax_with_temperature([6.0, 2.0, 1.5, 1.0, 0.0, -1.0], 1.0)
        for name, probs in (("flat", flat), ("peaked", peaked)):
            out = min_p_filter(probs, 0.2)
            self.assertAlmostEqual(sum(out), 1.0, places=12)
            check(self, f"filter_{name}_kept", sum(1 for p in out if p > 0.0))
            check(self, f"filter_{name}", out, rtol=1e-9, atol=1e-15)

    def test_edges(self):
        probs = [0.1, 0.4, 0.4, 0.1]
        check(self, "filter_pbase_0", min_p_filter(probs, 0.0), rtol=1e-12, atol=0.0)
        check(self, "filter_pbase_1_ties", min_p_filter(probs, 1.0), rtol=1e-12, atol=0.0)
        check(self, "filter_single", min_p_filter([1.0], 0.5), rtol=1e-12, atol=0.0)
        check(self, "filter_pbase_mixed", [outcome(min_p_filter, probs, p) for p in (0.3, -0.1, 1.5, 0.9, float("nan"), 0.5)],
              rtol=1e-12, atol=0.0)


class TestMinPSample(unittest.TestCase):
    def test_seeded_draws(self):
        rng = random.Random(1234)
        draws = [min_p_sample(TOY_LOGITS, 0.1, 1.0, rng) for _ in range(40)]
        self.assertTrue(all(isinstance(d, int) for d in draws))
        check(self, "sample_seeded_T1_p0.1", draws)

    def test_high_temperature_counts(self):
        rng = random.Random(7)
        counts = [0] * len(TOY_LOGITS)
        for _ in range(200):
            counts[min_p_sample(TOY_LOGITS, 0.2, 3.0, rng)] += 1
        check(self, "sample_counts_T3_p0.2", counts)
        rng = random.Random(7)
        counts = [0] * len(TOY_LOGITS)
        for _ in range(200):
            counts[min_p_sample(TOY_LOGITS, 0.3, 0.5, rng)] += 1
        check(self, "sample_counts_T0.5_p0.3", counts)

    def test_one_uniform_per_draw(self):
        rng = random.Random(99)
        twin = random.Random(99)
        for _ in range(5):
            min_p_sample(TOY_LOGITS, 0.05, 1.5, rng)
            twin.random()
        self.assertEqual(rng.random(), twin.random(), "each draw must use exactly one rng.random() call")
        # p_base = 1 keeps only the most likely token, whatever the temperature
        rng = random.Random(3)
        check(self, "sample_pbase_1", [min_p_sample(TOY_LOGITS, 1.0, 5.0, rng) for _ in range(10)])
