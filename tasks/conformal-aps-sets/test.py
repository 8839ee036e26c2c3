import math
import random
import unittest

from recode_check import check, outcome

from conformal.aps import aps_score, aps_set, calibrate, conformal_quantile, predict_sets
from conformal.randomness import draw_uniforms


def r(xs):
    return [round(x, 12) for x in xs]


def synthetic(seed, n, num_classes=6):
    """n (probabilities, label) pairs: peaked or flat distributions, the label drawn from them.

    Only +, * and / are used (no exp or pow), so every platform builds the same numbers."""
    rng = random.Random(seed)
    probs, labels = [], []
    for _ in range(n):
        sharp = rng.choice((1, 2, 3, 4))
        weights = []
        for _ in range(num_classes):
            u = rng.random()
            w = u
            for _ in range(sharp):
                w *= u
            weights.append(w + 1e-3)
        total = math.fsum(weights)
        p = [w / total for w in weights]
        x, acc, y = rng.random(), 0.0, num_classes - 1
        for j, pj in enumerate(p):
            acc += pj
            if x < acc:
                y = j
                break
        probs.append(p)
        labels.append(y)
    return probs, labels


class TestScore(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.probs, cls.labels = synthetic(11, 60)

    def test_hand(self):
        p = [0.1, 0.5, 0.15, 0.25]  # ranks: class 1, 3, 2, 0; running totals 0.5, 0.75, 0.9, 1.0
        check(self, "score_det_rank2", aps_score(p, 2), rtol=1e-12)
        check(self, "score_rand_rank2", aps_score(p, 2, u=0.4), rtol=1e-12)
        check(self, "score_rand_top", aps_score(p, 1, u=0.3), rtol=1e-12)
        check(self, "score_det_last", aps_score(p, 0), rtol=1e-12)
        check(self, "score_rand_u0_u1", [aps_score(p, 3, u=0.0), aps_score(p, 3, u=1.0)], rtol=1e-12)

    def test_ties(self):
        # Tied probabilities rank the smaller class index first.
        p = [0.3, 0.2, 0.3, 0.2]
        check(self, "score_ties", [aps_score(p, y) for y in range(4)], rtol=1e-12)

    def test_calibration_scores(self):
        us = draw_uniforms(random.Random(1), len(self.probs))
        check(self, "scores_det", r([aps_score(p, y) for p, y in zip(self.probs, self.labels)]), rtol=1e-10, atol=1e-12)
        check(self, "scores_rand", r([aps_score(p, y, u) for p, y, u in zip(self.probs, self.labels, us)]), rtol=1e-10, atol=1e-12)

    def test_errors(self):
        calls = (
            ([0.2, 0.8], 0),
            ([0.5, 0.5], 2),
            ([0.5, 0.5], -1),
            ([0.3, 0.3, 0.4], 2, 0.5),
            ([0.5, 0.6], 0),
            ([0.5, 0.5], 0, 1.5),
            ([0.6, 0.4], 1, 0.9),
            ([], 0),
        )
        check(self, "score_args", [outcome(aps_score, *args) for args in calls], rtol=1e-12)
        check(self, "score_single_class", aps_score([1.0], 0, u=0.25), rtol=1e-12)


class TestQuantile(unittest.TestCase):
    def test_rank(self):
        scores = [0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6]
        check(self, "q_n9_a0.1", conformal_quantile(scores, 0.1))   # ceil(10 * 0.9) = 9th smallest
        check(self, "q_n9_a0.3", conformal_quantile(scores, 0.3))   # ceil(10 * 0.7) = 7th smallest
        check(self, "q_n9_a0.45", conformal_quantile(scores, 0.45))  # ceil(10 * 0.55) = 6th smallest
        twenty = [i / 20 for i in range(19, 0, -1)]
        check(self, "q_n19_a0.05", conformal_quantile(twenty, 0.05))  # (19 + 1) * 0.95 = 19 exactly
        check(self, "q_n19_a0.12", conformal_quantile(twenty, 0.12))  # ceil(17.6) = 18

    def test_too_few_points(self):
        check(self, "q_inf", conformal_quantile([0.2, 0.4, 0.6], 0.2))  # ceil(4 * 0.8) = 4 > 3
        check(self, "q_single", conformal_quantile([0.42], 0.6))  # ceil(2 * 0.4) = 1
        check(self, "q_alpha_range", [outcome(conformal_quantile, [0.1, 0.2], a) for a in (0.6, 0.0, 1.0, 0.9, -0.1, 1.5)])
        check(self, "q_scores", [outcome(conformal_quantile, s, 0.1) for s in ([0.4, 0.1, 0.3], [], [i / 10 for i in range(10)])])


class TestSet(unittest.TestCase):
    P = [0.05, 0.5, 0.15, 0.3]  # ranks: class 1, 3, 2, 0; running totals 0.5, 0.8, 0.95, 1.0

    def test_hand(self):
        # tau = 0.7: L = 2 (0.8 >= 0.7), V = (0.8 - 0.7) / 0.3 = 1/3.
        check(self, "set_det_0.7", aps_set(self.P, 0.7))
        check(self, "set_rand_0.7_u0.2", aps_set(self.P, 0.7, u=0.2))
        check(self, "set_rand_0.7_u0.5", aps_set(self.P, 0.7, u=0.5))
        check(self, "set_det_0.96", aps_set(self.P, 0.96))
        check(self, "set_rand_0.9_u0.6", aps_set(self.P, 0.9, u=0.6))

    def test_threshold_edges(self):
        # tau equal to a running total: the label that reaches it counts (>=), and V = 0.
        check(self, "set_det_tie", aps_set(self.P, 0.5))
        check(self, "set_rand_tie_u0", aps_set(self.P, 0.5, u=0.0))
        check(self, "set_rand_tie_u0.1", aps_set(self.P, 0.5, u=0.1))
        check(self, "set_inf", [aps_set(self.P, math.inf), aps_set(self.P, math.inf, u=0.0)])
        check(self, "set_tau0", [aps_set(self.P, 0.0), aps_set(self.P, 0.0, u=0.999)])
        check(self, "set_u_range", [outcome(aps_set, self.P, 0.5, u=u) for u in (0.3, -0.1, 0.8)])
        check(self, "set_probs", [outcome(aps_set, p, 0.5) for p in ([0.6, 0.4], [0.2, 0.2], [0.1, 0.2, 0.7])])


class TestCalibrate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.probs, cls.labels = synthetic(2020, 250)

    def test_thresholds(self):
        check(self, "tau_det_a0.1", round(calibrate(self.probs, self.labels, 0.1), 12), rtol=1e-10)
        check(self, "tau_det_a0.2", round(calibrate(self.probs, self.labels, 0.2), 12), rtol=1e-10)
        check(self, "tau_rand_a0.1", round(calibrate(self.probs, self.labels, 0.1, random.Random(7)), 12), rtol=1e-10)
        check(self, "tau_rand_a0.25", round(calibrate(self.probs, self.labels, 0.25, random.Random(8)), 12), rtol=1e-10)

    def test_uniforms_drawn_once_in_order(self):
        rng, twin = random.Random(3), random.Random(3)
        tau = calibrate(self.probs[:40], self.labels[:40], 0.1, rng)
        draw_uniforms(twin, 40)
        self.assertEqual(rng.random(), twin.random(), "calibration must draw one uniform per point")
        check(self, "tau_rand_40", round(tau, 12), rtol=1e-10)

    def test_errors(self):
        pairs = ((self.probs[:30], self.labels[:30]), (self.probs, self.labels[:-1]), (self.probs[50:], self.labels[50:]))
        check(self, "tau_lengths", [outcome(calibrate, p, y, 0.1) for p, y in pairs], rtol=1e-10)
        check(self, "tau_alpha_range", [outcome(calibrate, self.probs, self.labels, a) for a in (0.15, 0.0, 0.3)], rtol=1e-10)
        check(self, "tau_small_n", calibrate(self.probs[:5], self.labels[:5], 0.1))


class TestPredict(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cal_probs, cls.cal_labels = synthetic(31, 300)
        cls.test_probs, cls.test_labels = synthetic(32, 120)

    def test_deterministic_sets(self):
        tau = calibrate(self.cal_probs, self.cal_labels, 0.1)
        sets = predict_sets(self.test_probs, tau)
        check(self, "sets_det", sets)
        covered = sum(1 for s, y in zip(sets, self.test_labels) if y in s)
        check(self, "coverage_det", covered)

    def test_randomised_sets(self):
        tau = calibrate(self.cal_probs, self.cal_labels, 0.1, random.Random(100))
        sets = predict_sets(self.test_probs, tau, random.Random(101))
        check(self, "sets_rand", sets)
        check(self, "sizes_rand", [len(s) for s in sets])
        rng, twin = random.Random(5), random.Random(5)
        predict_sets(self.test_probs[:10], tau, rng)
        draw_uniforms(twin, 10)
        self.assertEqual(rng.random(), twin.random(), "prediction must draw one uniform per test point")
        check(self, "sets_inf", predict_sets(self.test_probs[:3], math.inf, random.Random(0)))
