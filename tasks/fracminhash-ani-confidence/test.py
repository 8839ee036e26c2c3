import math
import random
import unittest

from recode_check import check, outcome

from fracminhash.ani import (
    ani_estimate,
    bias_factor,
    confidence_interval,
    containment,
    corrected_containment,
    point_estimate,
    prob_nothing_in_common,
)
from fracminhash.sketch import frac_sketch, n_unique_kmers

K = 21
SCALED = 10
DATA = {}


def _genome(rng, n):
    return "".join(rng.choice("ACGT") for _ in range(n))


def _mutate(rng, seq, rate):
    return "".join(rng.choice([b for b in "ACGT" if b != c]) if rng.random() < rate else c for c in seq)


def setUpModule():
    # A random genome, two mutated copies and an unrelated genome, sketched once.
    rng = random.Random(2023)
    base = _genome(rng, 4000)
    seqs = {"base": base, "mut1": _mutate(rng, base, 0.01), "mut5": _mutate(rng, base, 0.05), "other": _genome(rng, 3000)}
    for name, seq in seqs.items():
        DATA[name] = frac_sketch(seq, K, SCALED)
    DATA["n_base"] = n_unique_kmers(base, K)


class TestContainment(unittest.TestCase):
    def test_sets(self):
        check(self, "cont_hand", containment([1, 2, 3, 4], [2, 4, 6, 8, 10]), rtol=1e-15)
        # Containment is not symmetric: it is relative to the first sketch.
        check(self, "cont_hand_reverse", containment([2, 4, 6, 8, 10], [1, 2, 3, 4]), rtol=1e-15)
        # Repeated hashes count once.
        check(self, "cont_duplicates", containment([5, 5, 7], {7, 9}), rtol=1e-15)
        check(self, "cont_b_empty", containment([1, 2], []))
        check(self, "cont_sides", [outcome(containment, a, b) for a, b in (([3, 4], [4, 5]), ([], [1, 2]), ([1, 2, 3], [1]))], rtol=1e-15)

    def test_genomes(self):
        check(self, "cont_mut1", containment(DATA["base"], DATA["mut1"]), rtol=1e-15)
        check(self, "cont_mut5", containment(DATA["base"], DATA["mut5"]), rtol=1e-15)
        check(self, "cont_other", containment(DATA["base"], DATA["other"]))


class TestBiasFactor(unittest.TestCase):
    def test_values(self):
        check(self, "bias_values", [bias_factor(n, sc) for n, sc in ((1000, 1000), (50, 10), (3980, 10), (1, 2))], rtol=1e-12)
        # scaled = 1 keeps every k-mer: the sketch is never empty.
        check(self, "bias_scaled_1", bias_factor(7, 1))
        args = ((200, 5), (0, 10), (10, 0), (30, 3), (10, 1.5), (True, 10), (2, 7))
        check(self, "bias_args", [outcome(bias_factor, *a) for a in args], rtol=1e-12)


class TestCorrectedContainment(unittest.TestCase):
    def test_values(self):
        check(self, "corr_hand", corrected_containment([1, 2, 3, 4], [2, 4, 6], 40, 20), rtol=1e-12)
        check(self, "corr_mut5", corrected_containment(DATA["base"], DATA["mut5"], DATA["n_base"], SCALED), rtol=1e-12)
        # Small sets are where the correction matters.
        check(self, "corr_small_set", corrected_containment([11, 12], [11, 13], 8, 4), rtol=1e-12)


class TestPointEstimate(unittest.TestCase):
    def test_values_and_edges(self):
        check(self, "pt_values", [point_estimate(c, K) for c in (0.9, 0.5, 0.1, 0.001)], rtol=1e-12)
        check(self, "pt_k31", point_estimate(0.37, 31), rtol=1e-12)
        check(self, "pt_edges", [point_estimate(0.0, K), point_estimate(1.0, K), point_estimate(1.02, K), point_estimate(1, K)])
        check(self, "pt_containment_range", [outcome(point_estimate, c, K) for c in (0.25, -0.1, float("nan"), 0.75, "0.5")], rtol=1e-12)
        check(self, "pt_ksize_range", [outcome(point_estimate, 0.5, k) for k in (15, 0, 5)], rtol=1e-12)


class TestConfidenceInterval(unittest.TestCase):
    def test_values(self):
        # A bacterial-size genome sketched at scaled = 1000.
        ci = confidence_interval(0.6, 21, 1000, 5_000_000)
        check(self, "ci_large_genome", list(ci), rtol=1e-8)
        p = point_estimate(0.6, 21)
        self.assertLess(ci[0], p)
        self.assertLess(p, ci[1])
        check(self, "ci_small_sketch", list(confidence_interval(0.8, 21, 10, 3980)), rtol=1e-8)
        # A small set, where the bias factor (about 0.87) enters the variance.
        check(self, "ci_small_set_bias", list(confidence_interval(0.5, 21, 100, 200)), rtol=1e-8)
        check(self, "ci_k31_scaled100", list(confidence_interval(0.35, 31, 100, 200_000)), rtol=1e-8)

    def test_confidence_levels(self):
        widths = {}
        for conf in (0.9, 0.95, 0.99):
            lo, hi = confidence_interval(0.5, 21, 100, 50_000, confidence=conf)
            check(self, f"ci_conf_{conf}", [lo, hi], rtol=1e-8)
            widths[conf] = hi - lo
        self.assertLess(widths[0.9], widths[0.99])

    def test_edges_and_errors(self):
        check(self, "ci_edges", [list(confidence_interval(0.0, 21, 10, 1000)), list(confidence_interval(1.0, 21, 10, 1000)), list(confidence_interval(1.05, 21, 10, 1000))])
        # Too few k-mers for the scale: no interval can be computed.
        check(self, "ci_none", confidence_interval(0.5, 21, 100, 100))
        args = (
            (0.7, 21, 10, 2000, 0.9),
            (0.5, 21, 10, 1000, 1.0),
            (0.5, 21, 10, 1000, 0.0),
            (0.4, 25, 50, 20000, 0.95),
            (0.5, 21, 0, 1000, 0.95),
            (-0.2, 21, 10, 1000, 0.95),
            (0.55, 15, 20, 5000, 0.8),
            (0.5, 21, 10, 0, 0.95),
            (0.5, 0, 10, 1000, 0.95),
        )
        check(self, "ci_args", [outcome(confidence_interval, *a) for a in args], rtol=1e-8)
        # A single k-mer is a valid (if hopeless) input.
        check(self, "ci_one_kmer", confidence_interval(0.5, 21, 10, 1))


class TestProbNothingInCommon(unittest.TestCase):
    def test_values(self):
        check(self, "pnc_values", [prob_nothing_in_common(r, 21, 1000, 5000) for r in (0.0, 0.05, 0.2, 0.5)], rtol=1e-10)
        check(self, "pnc_large_genome", prob_nothing_in_common(0.1, 21, 1000, 5_000_000), rtol=1e-9, atol=1e-300)
        check(self, "pnc_scaled_10", prob_nothing_in_common(0.25, 31, 10, 800), rtol=1e-10)

    def test_edges_and_errors(self):
        # Every k-mer mutated: nothing can be shared.
        check(self, "pnc_rate_1", prob_nothing_in_common(1.0, 21, 1000, 5000))
        # scaled = 1 keeps every k-mer: some unmutated k-mer is always shared.
        check(self, "pnc_scaled_1", prob_nothing_in_common(0.3, 21, 1, 5000))
        check(self, "pnc_rate_1_scaled_1", prob_nothing_in_common(1.0, 21, 1, 5000))
        check(self, "pnc_one_kmer", prob_nothing_in_common(0.01, 21, 10, 1), rtol=1e-12)
        args = (
            (0.15, 21, 100, 3000),
            (-0.1, 21, 10, 100),
            (1.5, 21, 10, 100),
            (0.02, 15, 10, 400),
            (0.1, 21, 0, 100),
            (0.1, 0, 10, 100),
            (0.4, 31, 50, 2000),
            (0.1, 21, 10, 0),
        )
        check(self, "pnc_args", [outcome(prob_nothing_in_common, *a) for a in args], rtol=1e-10, atol=1e-300)


class TestAniEstimate(unittest.TestCase):
    KEYS = ("containment", "mutation_rate", "ani", "ani_low", "ani_high", "p_nothing_in_common")

    def _check_result(self, key, res):
        self.assertEqual(set(res), set(self.KEYS))
        check(self, key, [res[k] for k in self.KEYS], rtol=1e-8, atol=1e-300)

    def test_relatives(self):
        for name in ("mut1", "mut5"):
            res = ani_estimate(DATA["base"], DATA[name], K, SCALED, DATA["n_base"])
            self._check_result(f"ani_{name}", res)
            self.assertLessEqual(res["ani_low"], res["ani"])
            self.assertLessEqual(res["ani"], res["ani_high"])
        res = ani_estimate(DATA["base"], DATA["mut5"], K, SCALED, DATA["n_base"], confidence=0.99)
        self._check_result("ani_mut5_99", res)

    def test_edges(self):
        self._check_result("ani_unrelated", ani_estimate(DATA["base"], DATA["other"], K, SCALED, DATA["n_base"]))
        self._check_result("ani_identical", ani_estimate(DATA["base"], DATA["base"], K, SCALED, DATA["n_base"]))
        # A tiny set: the interval cannot be computed and both ends are None.
        self._check_result("ani_no_interval", ani_estimate([3, 5, 8, 9], [3], 21, 100, 100))
        check(
            self,
            "ani_sketch_a",
            [outcome(ani_estimate, a, [1], K, SCALED, 100) for a in ([1, 2, 3], [], [1, 4])],
            rtol=1e-8,
            atol=1e-300,
        )
