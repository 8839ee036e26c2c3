import math
import unittest

from evalkit.metrics import aggregate_pass_at_k, naive_pass_at_k, pass_at_k
from evalkit.results import parse_results
from evalkit.samples import OUTCOMES, sample_jsonl
from recode_check import check, outcome


class TestPassAtK(unittest.TestCase):
    def test_values(self):
        cases = [(10, 3, 1), (10, 3, 2), (10, 3, 5), (20, 1, 10), (16, 5, 4), (7, 2, 3)]
        values = [pass_at_k(n, c, k) for n, c, k in cases]
        for (n, c, k), v in zip(cases, values):
            self.assertIsInstance(v, float)
            self.assertTrue(0.0 <= v <= 1.0)
        check(self, "pass_at_k_small", values, rtol=1e-12)
        # k = 1 is the fraction of correct samples
        check(self, "pass_at_1", [pass_at_k(13, c, 1) for c in range(14)], rtol=1e-12, atol=1e-15)

    def test_large_n(self):
        cases = [(200, 3, 100), (200, 17, 10), (1000, 1, 500), (5000, 40, 100), (4000, 3, 2000), (4000, 25, 1500)]
        check(self, "pass_at_k_large", [pass_at_k(n, c, k) for n, c, k in cases], rtol=1e-9)

    def test_edges_and_errors(self):
        self.assertEqual(pass_at_k(10, 0, 5), 0.0)
        self.assertEqual(pass_at_k(10, 10, 1), 1.0)
        # only 2 wrong samples: any 3 drawn contain a correct one
        self.assertEqual(pass_at_k(10, 8, 3), 1.0)
        check(self, "pass_at_k_boundary", pass_at_k(10, 8, 2), rtol=1e-12)
        calls = ((12, 4, 3), (10, 3, 11), (10, 11, 1), (9, 9, 9), (0, 0, 1), (10, -1, 1), (30, 2, 7), (10, 3, 0),
                 (10.0, 3, 1), (1, 0, 1))
        check(self, "pass_at_k_mixed", [outcome(pass_at_k, *args) for args in calls], rtol=1e-12)


class TestNaivePassAtK(unittest.TestCase):
    def test_values_and_bias(self):
        cases = [(10, 3, 1), (10, 3, 5), (20, 1, 10), (200, 17, 100)]
        naive = [naive_pass_at_k(n, c, k) for n, c, k in cases]
        check(self, "naive_values", naive, rtol=1e-12)
        for n in (5, 12):
            for c in range(n + 1):
                for k in range(1, n + 1):
                    self.assertLessEqual(naive_pass_at_k(n, c, k), pass_at_k(n, c, k) + 1e-12)
        check(self, "naive_k_above_n", [outcome(naive_pass_at_k, 11, 4, 3), outcome(naive_pass_at_k, 10, 3, 11),
                                        outcome(naive_pass_at_k, 6, 1, 6)], rtol=1e-12)


class TestAggregate(unittest.TestCase):
    def test_sample_run(self):
        results = parse_results(sample_jsonl())
        check(self, "aggregate_sample", aggregate_pass_at_k(results, ks=(1, 5, 10)), rtol=1e-12)
        # HumanEval/5 has only 10 samples, so pass@16 is not reported
        check(self, "aggregate_sample_16", aggregate_pass_at_k(results, ks=(1, 10, 16)), rtol=1e-12)

    def test_per_problem_mean_and_errors(self):
        uneven = {"a": [True] * 2 + [False] * 2, "b": [False] * 19 + [True], "c": [False] * 8}
        check(self, "aggregate_uneven", aggregate_pass_at_k(uneven, ks=(1, 2, 3, 4)), rtol=1e-12)
        self.assertEqual(aggregate_pass_at_k(uneven, ks=(5, 100)), {})
        # the default ks are (1, 10, 100): every one is defined with at least 100 samples per problem
        many = {"a": [True] * 3 + [False] * 98, "b": [False] * 120 + [True] * 5, "c": [True] * 2 + [False] * 100}
        check(self, "aggregate_default_ks", aggregate_pass_at_k(many), rtol=1e-12)
        small = {"x": [False, True, True], "y": [True] * 5}
        check(self, "aggregate_no_problems", [outcome(aggregate_pass_at_k, small, ks=(1,)),
                                              outcome(aggregate_pass_at_k, {}, ks=(1,)),
                                              outcome(aggregate_pass_at_k, {"z": [False, True]}, ks=(1,))], rtol=1e-12)
        check(self, "aggregate_ks_mixed", [outcome(aggregate_pass_at_k, uneven, ks=ks)
                                           for ks in ((3,), (0,), (1, -2), (2, 4), (1.5,), (1, 20))], rtol=1e-12)
