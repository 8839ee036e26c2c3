import math
import random
import unittest

from recode_check import check, outcome

from smoothing.label_smoothing import (
    label_smoothing_cross_entropy,
    smooth_labels,
    smoothed_optimum,
    smoothing_decomposition,
)

HAND_LOGITS = [[2.0, 0.5, -1.0, 0.0], [0.1, 0.2, 3.0, -0.5], [1.0, 1.0, 1.0, 1.0]]
HAND_LABELS = [0, 1, 3]


def random_batch(seed, n, k, scale=3.0):
    rng = random.Random(seed)
    return [[round(rng.gauss(0.0, scale), 3) for _ in range(k)] for _ in range(n)], [rng.randrange(k) for _ in range(n)]


class TestSmoothLabels(unittest.TestCase):
    def test_distributions(self):
        check(self, "smooth_k4_e01", smooth_labels(2, 4, 0.1), rtol=1e-12)
        check(self, "smooth_k10_default", smooth_labels(0, 10), rtol=1e-12)
        check(self, "smooth_k3_e1", smooth_labels(1, 3, 1.0), rtol=1e-12)
        check(self, "smooth_k5_e0", smooth_labels(4, 5, 0.0), rtol=1e-12)
        self.assertAlmostEqual(math.fsum(smooth_labels(3, 1000, 0.1)), 1.0, places=12)

    def test_errors(self):
        check(self, "smooth_outcomes", [outcome(smooth_labels, *args) for args in ((3, 4, 0.1), (4, 4, 0.1), (-1, 4, 0.1), (0, 2, 0.2), (0, 1, 0.1), (0, 4, 1.5),
                                                                     (0, 6, 0.5), (0, 4, -0.1), (True, 4, 0.1), (2, 3, 1.0))], rtol=1e-12)
        check(self, "smooth_k2", smooth_labels(1, 2, 0.3), rtol=1e-12)


class TestLabelSmoothingCE(unittest.TestCase):
    def test_hand(self):
        check(self, "ls_hand_none", label_smoothing_cross_entropy(HAND_LOGITS, HAND_LABELS, 0.1, "none"), rtol=1e-12)
        check(self, "ls_hand_mean", label_smoothing_cross_entropy(HAND_LOGITS, HAND_LABELS), rtol=1e-12)
        check(self, "ls_hand_sum_e03", label_smoothing_cross_entropy(HAND_LOGITS, HAND_LABELS, 0.3, "sum"), rtol=1e-12)

    def test_random_and_limits(self):
        logits, labels = random_batch(17, 25, 10)
        check(self, "ls_random_e01", label_smoothing_cross_entropy(logits, labels, 0.1, "none"), rtol=1e-12)
        check(self, "ls_random_e0", label_smoothing_cross_entropy(logits, labels, 0.0), rtol=1e-12)
        check(self, "ls_random_e1", label_smoothing_cross_entropy(logits, labels, 1.0), rtol=1e-12)
        big = [[1000.0, -1000.0, 0.0], [-800.0, 800.0, 799.0]]
        out = label_smoothing_cross_entropy(big, [0, 2], 0.2, "none")
        self.assertTrue(all(math.isfinite(v) for v in out))
        check(self, "ls_large_logits", out, rtol=1e-12)

    def test_errors(self):
        check(self, "ls_outcomes", [
            outcome(label_smoothing_cross_entropy, [[0.0, 1.0], [2.0, -1.0]], [0, 1]),
            outcome(label_smoothing_cross_entropy, [[0.0, 1.0]], [0, 1]),
            outcome(label_smoothing_cross_entropy, [], []),
            outcome(label_smoothing_cross_entropy, [[0.5, 0.0, -0.5]], [2], reduction="none"),
            outcome(label_smoothing_cross_entropy, [], [], reduction="none"),
            outcome(label_smoothing_cross_entropy, [[0.0, 1.0]], [2]),
            outcome(label_smoothing_cross_entropy, [[0.0, 1.0]], [1], epsilon=0.6),
            outcome(label_smoothing_cross_entropy, [[0.0, 1.0]], [1], epsilon=2.0),
            outcome(label_smoothing_cross_entropy, [[0.0, 1.0]], [1], reduction="max"),
            outcome(label_smoothing_cross_entropy, [[0.0, 1.0], [1.5, 0.5]], [1, 0], reduction="sum"),
            outcome(label_smoothing_cross_entropy, [[0.0, float("nan")]], [1]),
        ], rtol=1e-12)
        check(self, "ls_two_classes", label_smoothing_cross_entropy([[0.0, 2.0]], [1], 0.5, "sum"), rtol=1e-12)


class TestDecomposition(unittest.TestCase):
    def test_terms(self):
        d = smoothing_decomposition(HAND_LOGITS[0], 0, 0.1)
        check(self, "decomp_hand", d, rtol=1e-12)
        logits, labels = random_batch(3, 6, 7)
        terms = [smoothing_decomposition(r, y, 0.25) for r, y in zip(logits, labels)]
        check(self, "decomp_random", terms, rtol=1e-12, atol=1e-15)
        # The two-term form equals the smoothed cross-entropy.
        direct = label_smoothing_cross_entropy(logits, labels, 0.25, "none")
        for t, v in zip(terms, direct):
            self.assertAlmostEqual(t["loss"], v, places=12)

    def test_uniform_prediction(self):
        # A uniform prediction has D_KL(u || p) = 0 and H(u, p) = log K.
        check(self, "decomp_uniform", smoothing_decomposition([0.5] * 5, 2, 0.4), rtol=1e-12, atol=1e-15)
        check(self, "decomp_default_eps", smoothing_decomposition([0.3, -0.2, 1.1], 1), rtol=1e-12)
        check(self, "decomp_eps_outcomes", [outcome(smoothing_decomposition, [0.3, -0.2, 1.1], 1, eps) for eps in (0.5, 1.2, 0.0)], rtol=1e-12)


class TestSmoothedOptimum(unittest.TestCase):
    def test_values(self):
        check(self, "optimum_k1000_e01", smoothed_optimum(1000, 0.1), rtol=1e-12)
        check(self, "optimum_k10_default", smoothed_optimum(10), rtol=1e-12)
        check(self, "optimum_k2_e05", smoothed_optimum(2, 0.5), rtol=1e-12)
        check(self, "optimum_limits", [smoothed_optimum(4, 0.0), smoothed_optimum(4, 1.0)], rtol=1e-12, atol=1e-15)
        check(self, "optimum_outcomes", [outcome(smoothed_optimum, 3, 0.2), outcome(smoothed_optimum, 1, 0.1), outcome(smoothed_optimum, 10, -0.2),
                                          outcome(smoothed_optimum, 10, 0.05), outcome(smoothed_optimum, 10, 1.5)], rtol=1e-12)

    def test_minimiser(self):
        # The logits 0 for every class and the gap for the true class reach the minimum of H(q', p).
        k, eps = 6, 0.15
        opt = smoothed_optimum(k, eps)
        row = [0.0] * k
        row[3] = opt["logit_gap"]
        best = label_smoothing_cross_entropy([row], [3], eps, "sum")
        for delta in (-0.05, 0.05):
            row2 = list(row)
            row2[3] += delta
            self.assertGreater(label_smoothing_cross_entropy([row2], [3], eps, "sum"), best)
        check(self, "optimum_loss", best, rtol=1e-12)
