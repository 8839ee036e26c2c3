import random
import unittest

from recode_check import check, outcome

from calib.ece import (
    assign_bins,
    expected_calibration_error,
    maximum_calibration_error,
    reliability_stats,
)


def synthetic(seed, n, n_classes=4, overconfidence=0.15):
    """Predictions whose true accuracy lags the stated confidence."""
    rng = random.Random(seed)
    conf, pred, lab = [], [], []
    for _ in range(n):
        c = round(rng.uniform(1.0 / n_classes, 1.0), 3)
        p = rng.randrange(n_classes)
        correct = rng.random() < max(0.0, c - overconfidence)
        y = p if correct else (p + 1 + rng.randrange(n_classes - 1)) % n_classes
        conf.append(c)
        pred.append(p)
        lab.append(y)
    return conf, pred, lab


class TestAssignBins(unittest.TestCase):
    def test_edges_are_right_closed(self):
        conf = [0.0, 0.05, 0.1, 0.1000001, 0.3, 0.5, 0.55, 0.9, 0.95, 1.0]
        bins = assign_bins(conf, 10)
        check(self, "bins_m10", bins)
        self.assertEqual(bins[0], 0)
        self.assertEqual(bins[-1], 9)
        check(self, "bins_m3", assign_bins([0.0, 1 / 3, 0.34, 2 / 3, 0.7, 1.0], 3))

    def test_random_and_invalid(self):
        rng = random.Random(7)
        conf = [rng.random() for _ in range(200)]
        check(self, "bins_random_m15", assign_bins(conf, 15))
        check(self, "bins_outcomes", [outcome(assign_bins, [0.2, 0.75], 10), outcome(assign_bins, [0.2, 1.2], 10), outcome(assign_bins, [0.2, -0.01], 10),
                                      outcome(assign_bins, [0.2, 0.0, 0.6], 4), outcome(assign_bins, [0.2], 0), outcome(assign_bins, [0.2], 1)])


class TestReliabilityStats(unittest.TestCase):
    def test_hand_example_with_empty_bins(self):
        conf = [0.95, 0.92, 0.85, 0.6, 0.55, 0.2]
        pred = [1, 0, 2, 1, 1, 0]
        lab = [1, 1, 2, 1, 0, 0]
        stats = reliability_stats(conf, pred, lab, 5)
        self.assertEqual(len(stats), 5)
        check(self, "stats_hand_m5", stats)

    def test_random_counts_sum_to_n(self):
        conf, pred, lab = synthetic(11, 300)
        stats = reliability_stats(conf, pred, lab, 10)
        self.assertEqual(sum(s["count"] for s in stats), 300)
        check(self, "stats_random_m10", stats)


class TestECE(unittest.TestCase):
    def test_weighted_by_bin_share(self):
        conf = [0.95, 0.92, 0.85, 0.6, 0.55, 0.2]
        pred = [1, 0, 2, 1, 1, 0]
        lab = [1, 1, 2, 1, 0, 0]
        check(self, "ece_hand_m5", expected_calibration_error(conf, pred, lab, 5))
        check(self, "ece_hand_m10", expected_calibration_error(conf, pred, lab, 10))

    def test_random_overconfident(self):
        conf, pred, lab = synthetic(3, 500)
        check(self, "ece_random_m15", expected_calibration_error(conf, pred, lab))
        check(self, "ece_random_m20", expected_calibration_error(conf, pred, lab, n_bins=20))
        # Perfect calibration within every bin gives zero.
        self.assertAlmostEqual(expected_calibration_error([0.5, 0.5, 1.0], [0, 1, 2], [0, 0, 2], 10), 0.0)
        check(self, "ece_size_outcomes", [outcome(expected_calibration_error, conf[:n], pred[:n], lab[:n], 10) for n in (7, 0, 40)])


class TestMCE(unittest.TestCase):
    def test_max_gap_over_nonempty_bins(self):
        conf = [0.95, 0.92, 0.85, 0.6, 0.55, 0.2]
        pred = [1, 0, 2, 1, 1, 0]
        lab = [1, 1, 2, 1, 0, 0]
        check(self, "mce_hand_m5", maximum_calibration_error(conf, pred, lab, 5))
        conf, pred, lab = synthetic(5, 400, overconfidence=0.25)
        check(self, "mce_random_m15", maximum_calibration_error(conf, pred, lab))
        check(self, "mce_random_m4", maximum_calibration_error(conf, pred, lab, n_bins=4))
