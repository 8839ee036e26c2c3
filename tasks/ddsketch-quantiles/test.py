import math
import random
import unittest

from recode_check import check, outcome

from sketches.ddsketch import DDSketch, bucket_index, bucket_value, gamma_from_accuracy


def exact_quantile(values, q):
    """The q-quantile as the sketch defines it: the value of rank floor(q (n - 1)) in sorted order (0-based)."""
    ordered = sorted(values)
    return ordered[int(math.floor(q * (len(ordered) - 1)))]


def latencies(seed, n):
    """Request latencies in milliseconds: a log-normal body and a heavy tail of slow requests."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        x = rng.lognormvariate(3.0, 0.6)
        if rng.random() < 0.02:
            x *= rng.paretovariate(1.5) * 20
        out.append(x)
    return out


QS = [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0]


class TestGamma(unittest.TestCase):
    def test_values_and_errors(self):
        check(self, "gamma", [gamma_from_accuracy(a) for a in (0.001, 0.01, 0.02, 0.05, 0.25, 0.5)])
        self.assertGreater(gamma_from_accuracy(0.01), 1.0)
        check(self, "gamma_outcomes", [outcome(gamma_from_accuracy, a) for a in (0.1, 0.0, 1.0, -0.2, 1.5, True)])


class TestBucketIndex(unittest.TestCase):
    def test_indices(self):
        g1, g5 = gamma_from_accuracy(0.01), gamma_from_accuracy(0.05)
        xs = [1.0, 1.5, 0.3, 1e-6, 2.5e-3, 123.456, 1e6, 7.0, 0.999]
        check(self, "index_a01", [bucket_index(x, g1) for x in xs])
        check(self, "index_a05", [bucket_index(x, g5) for x in xs])
        check(self, "index_int_input", bucket_index(10, g5))

    def test_bucket_bounds_and_errors(self):
        rng = random.Random(11)
        g = gamma_from_accuracy(0.02)
        xs = [math.exp(rng.uniform(-20.0, 20.0)) for _ in range(300)]
        idx = [bucket_index(x, g) for x in xs]
        for x, i in zip(xs, idx):
            # The bucket is (gamma^(i-1), gamma^i]: closed on the right.
            self.assertLessEqual(x, g**i * (1 + 1e-12))
            self.assertGreater(x, g ** (i - 1) * (1 - 1e-12))
        check(self, "index_random", idx)
        check(self, "index_outcomes", [outcome(bucket_index, x, gg) for x, gg in ((2.0, g), (0.0, g), (-1.5, g), (math.inf, g), (math.nan, g), (2.0, 1.0), (2.0, 0.5))])


class TestBucketValue(unittest.TestCase):
    def test_values_and_accuracy(self):
        a = 0.05
        g = gamma_from_accuracy(a)
        check(self, "values", [bucket_value(i, g) for i in (-40, -5, -1, 0, 1, 7, 100)])
        rng = random.Random(5)
        for _ in range(200):
            x = math.exp(rng.uniform(-10.0, 10.0))
            v = bucket_value(bucket_index(x, g), g)
            self.assertLessEqual(abs(v - x), a * x * (1 + 1e-9))
        check(self, "value_outcomes", [outcome(bucket_value, i, gg) for i, gg in ((3, g), (2.5, g), (3, 1.0), (True, g))])


class TestSketchQuantiles(unittest.TestCase):
    def test_rank_rule_small(self):
        s = DDSketch(0.01)
        for x in [5.0, 1.0, 4.0, 2.0, 3.0]:
            s.add(x)
        check(self, "small_count", s.count)
        check(self, "small_quantiles", [s.quantile(q) for q in (0.0, 0.1, 0.24, 0.25, 0.26, 0.5, 0.74, 0.75, 0.76, 0.99, 1.0)])

    def test_negative_and_zero(self):
        s = DDSketch(0.02)
        data = [-50.0, -3.0, -3.1, -0.2, 0.0, 0.0, 0.0, 0.4, 2.0, 9.0, 120.0, -7.5]
        for x in data:
            s.add(x)
        got = [s.quantile(q) for q in (0.0, 0.05, 0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)]
        check(self, "mixed_quantiles", got)
        check(self, "mixed_buckets", s.num_buckets)
        for q, v in zip((0.0, 0.05, 0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), got):
            x = exact_quantile(data, q)
            self.assertLessEqual(abs(v - x), 0.02 * abs(x) + 1e-12)

    def test_weights(self):
        weighted, repeated = DDSketch(0.01), DDSketch(0.01)
        for x, w in [(3.0, 2), (10.0, 1), (0.5, 4), (-2.0, 3)]:
            weighted.add(x, w)
            for _ in range(w):
                repeated.add(x)
        check(self, "weighted_count", weighted.count)
        check(self, "weighted_quantiles", [weighted.quantile(q) for q in QS])
        self.assertEqual([weighted.quantile(q) for q in QS], [repeated.quantile(q) for q in QS])
        half = DDSketch(0.01)
        half.add(1.0, 0.5)
        half.add(100.0, 2.5)
        check(self, "fractional", [half.count, half.quantile(0.0), half.quantile(0.3), half.quantile(1.0)])
        # Weights so large that n - 1 is n in floating point: q = 1 is still the largest value.
        huge = []
        for data in ([(1.0, 1e17), (2.0, 1e17)], [(-4.0, 1e17), (0.0, 1e17)], [(-4.0, 1e17), (-8.0, 1e17)]):
            s = DDSketch(0.01)
            for x, w in data:
                s.add(x, w)
            huge.append([s.quantile(0.5), s.quantile(1.0)])
        check(self, "huge_weights", huge)

    def test_empty_and_errors(self):
        s = DDSketch(0.01)
        self.assertIsNone(s.quantile(0.5))
        s.add(4.0)
        cases = [(s.quantile, 0.5), (s.quantile, -0.1), (s.quantile, 1.1), (s.add, math.nan), (s.add, math.inf), (s.add, "3"), (s.add, 2.0, 0), (s.add, 2.0, -1.0)]
        check(self, "sketch_outcomes", [outcome(*c) for c in cases])
        check(self, "after_errors", [s.count, s.quantile(1.0)])
        check(self, "default_accuracy", [DDSketch().relative_accuracy, DDSketch().gamma, DDSketch().max_buckets])
        made = [outcome(lambda *a: DDSketch(*a).max_buckets, *a) for a in ((0.01,), (0.0,), (1.0,), (0.01, 0), (0.01, 2.5), (0.01, 8))]
        check(self, "constructor_outcomes", made)


class TestSketchAccuracy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.values = latencies(2019, 5000)

    def test_relative_error_guarantee(self):
        for alpha in (0.01, 0.05):
            s = DDSketch(alpha)
            for x in self.values:
                s.add(x)
            got = [s.quantile(q) for q in QS]
            check(self, f"latency_quantiles_{alpha}", got)
            for q, v in zip(QS, got):
                x = exact_quantile(self.values, q)
                self.assertLessEqual(abs(v - x), alpha * x * (1 + 1e-9), f"q={q}")

    def test_merge_equals_union(self):
        whole, left, right = DDSketch(0.01), DDSketch(0.01), DDSketch(0.01)
        for i, x in enumerate(self.values):
            v = x if i % 7 else -x
            whole.add(v)
            (left if i % 3 else right).add(v)
        merged = DDSketch(0.01)
        merged.merge(left)
        merged.merge(right)
        got = [merged.quantile(q) for q in QS]
        check(self, "merged_quantiles", got)
        # Fully mergeable: the merged sketch is the sketch of the union.
        self.assertEqual(got, [whole.quantile(q) for q in QS])
        check(self, "merged_count", merged.count)
        self.assertEqual(left.count + right.count, merged.count)
        check(self, "left_unchanged", [left.count, left.quantile(0.5)])
        check(self, "merge_outcomes", [outcome(merged.merge, DDSketch(0.01)), outcome(merged.merge, DDSketch(0.02)), outcome(merged.merge, [1.0])])


class TestCollapse(unittest.TestCase):
    def test_bounded_buckets(self):
        rng = random.Random(3)
        data = [math.exp(rng.uniform(-12.0, 12.0)) for _ in range(3000)]
        s = DDSketch(0.01, max_buckets=40)
        for x in data:
            s.add(x)
        self.assertLessEqual(s.num_buckets, 40)
        check(self, "collapsed_buckets", s.num_buckets)
        got = [s.quantile(q) for q in QS]
        check(self, "collapsed_quantiles", got)
        # The high quantiles keep their accuracy; the low ones are merged upward.
        for q in (0.99, 0.999, 1.0):
            x = exact_quantile(data, q)
            self.assertLessEqual(abs(s.quantile(q) - x), 0.01 * x * (1 + 1e-9))

    def test_collapse_negative_side_and_merge(self):
        a, b = DDSketch(0.05, max_buckets=5), DDSketch(0.05, max_buckets=5)
        for x in [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]:
            a.add(x)
            b.add(-x / 3)
        b.add(0.0, 2)
        check(self, "small_collapse", [a.num_buckets, a.quantile(0.0), a.quantile(0.5), a.quantile(1.0)])
        check(self, "negative_collapse", [b.num_buckets, b.quantile(0.0), b.quantile(0.5), b.quantile(1.0)])
        c = DDSketch(0.05, max_buckets=3)
        c.merge(a)
        c.merge(b)
        check(self, "merge_collapse", [c.num_buckets, c.count] + [c.quantile(q) for q in (0.0, 0.3, 0.5, 0.7, 1.0)])
        # A sketch merged with itself counts every value twice; the limit is this sketch's.
        c.merge(c)
        a.merge(c)
        check(self, "merge_self", [c.num_buckets, c.count, c.quantile(0.5), a.num_buckets, a.count, a.quantile(0.2)])
