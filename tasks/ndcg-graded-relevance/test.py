import math
import unittest

from recode_check import check, outcome

from rankeval.ndcg import dcg, discount, gain, ideal_dcg, mean_ndcg, ndcg, tied_dcg
from rankeval.run import load_run


class TestGain(unittest.TestCase):
    def test_values_and_errors(self):
        check(self, "gains", [gain(r) for r in range(5)])
        check(self, "gain_mixed", [outcome(gain, y) for y in (6, -1, 1.5, 0, True, 9)])


class TestDiscount(unittest.TestCase):
    def test_values_and_errors(self):
        check(self, "discounts", [discount(r) for r in range(1, 8)], rtol=1e-15)
        check(self, "discount_mixed", [outcome(discount, r) for r in (11, 0, -2, 30, 1.0, 2)], rtol=1e-15)


class TestDCG(unittest.TestCase):
    RANKED = [3, 2, 3, 0, 1, 2]

    def test_ranked_lists(self):
        check(self, "dcg_full", dcg(self.RANKED), rtol=1e-12)
        check(self, "dcg_cutoffs", [dcg(self.RANKED, k) for k in (1, 2, 3, 5)], rtol=1e-12)
        # a cut-off beyond the list keeps every rank
        self.assertEqual(dcg(self.RANKED, 10), dcg(self.RANKED))
        check(self, "dcg_single", dcg([2]), rtol=1e-12)

    def test_errors(self):
        check(self, "dcg_empty", dcg([]))
        check(self, "dcg_k_mixed", [outcome(dcg, self.RANKED, k) for k in (4, 0, -1, None, 2.5, 7)], rtol=1e-12)
        check(self, "dcg_negative_label", [outcome(dcg, [1, 4, 0]), outcome(dcg, [1, -1, 0]), outcome(dcg, [0, 2, 2, 1])],
              rtol=1e-12)


class TestIdealDCG(unittest.TestCase):
    def test_sorted_labels(self):
        labels = [0, 1, 3, 0, 2, 3, 0, 1]
        check(self, "ideal_full", ideal_dcg(labels), rtol=1e-12)
        # the ideal list draws on every judged label, whatever a system retrieved
        check(self, "ideal_cutoffs", [ideal_dcg(labels, k) for k in (1, 2, 3, 4)], rtol=1e-12)
        self.assertEqual(ideal_dcg(labels), dcg(sorted(labels, reverse=True)))
        check(self, "ideal_all_zero", ideal_dcg([0, 0, 0], 2))


class TestTiedDCG(unittest.TestCase):
    def test_without_ties(self):
        labels, scores = load_run()["q1"]
        ranked = [labels[i] for i in sorted(range(len(scores)), key=lambda i: -scores[i])]
        for k in (None, 3):
            self.assertAlmostEqual(tied_dcg(labels, scores, k), dcg(ranked, k), places=12)
        check(self, "tied_q1", [tied_dcg(labels, scores, k) for k in (None, 1, 4)], rtol=1e-12)

    def test_tie_groups(self):
        labels, scores = load_run()["q2"]
        check(self, "tied_q2", [tied_dcg(labels, scores, k) for k in (None, 1, 2, 3, 4, 5)], rtol=1e-12)
        # q3: four documents share the top score; a cut-off inside the group takes part of it
        labels3, scores3 = load_run()["q3"]
        check(self, "tied_q3", [tied_dcg(labels3, scores3, k) for k in (None, 1, 2, 4, 6)], rtol=1e-12)
        check(self, "tied_length_mismatch", [outcome(tied_dcg, [1, 2], [0.5, 0.5], None),
                                             outcome(tied_dcg, [1, 2], [0.5], None),
                                             outcome(tied_dcg, [2, 0, 1], [0.1, 0.9, 0.4], None)], rtol=1e-12)


class TestNDCG(unittest.TestCase):
    def test_values(self):
        run = load_run()
        values = {q: [ndcg(labels, scores, k) for k in (None, 3, 5)] for q, (labels, scores) in run.items() if q != "q4"}
        for vals in values.values():
            self.assertTrue(all(0.0 <= v <= 1.0 for v in vals))
        check(self, "ndcg_queries", values, rtol=1e-12)

    def test_edge_cases(self):
        labels = [2, 0, 1, 3]
        self.assertAlmostEqual(ndcg(labels, [3.0, 1.0, 2.0, 4.0]), 1.0, places=12)
        check(self, "ndcg_reversed", ndcg(labels, [-3.0, -1.0, -2.0, -4.0], 2), rtol=1e-12)
        check(self, "ndcg_all_irrelevant", ndcg([0, 0, 0], [0.3, 0.2, 0.1]))
        check(self, "ndcg_all_tied", ndcg(labels, [1.0] * 4, 2), rtol=1e-12)
        check(self, "ndcg_empty", [outcome(ndcg, [1], [0.7]), outcome(ndcg, [], []), outcome(ndcg, [0, 3], [0.9, 0.2])],
              rtol=1e-12)
        check(self, "ndcg_length_mismatch", [outcome(ndcg, [1, 0, 2], [0.2, 0.1, 0.0]),
                                             outcome(ndcg, [1, 0], [0.2, 0.1, 0.0]),
                                             outcome(ndcg, [1, 0], [0.1, 0.2])], rtol=1e-12)


class TestMeanNDCG(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.queries = load_run()

    def test_mean_over_queries(self):
        check(self, "mean_ndcg", [mean_ndcg(self.queries, k) for k in (None, 1, 3, 5)], rtol=1e-12)
        # every query weighs the same, however many documents it has
        two = {q: self.queries[q] for q in ("q1", "q3")}
        expected = (ndcg(*self.queries["q1"], 3) + ndcg(*self.queries["q3"], 3)) / 2
        self.assertTrue(math.isclose(mean_ndcg(two, 3), expected, rel_tol=1e-12))
        check(self, "mean_ndcg_two", mean_ndcg(two, 3), rtol=1e-12)
        one = {"qa": ([0, 2, 1], [0.5, 0.3, 0.8])}
        check(self, "mean_ndcg_no_queries", [outcome(mean_ndcg, one, 3), outcome(mean_ndcg, {}, 3),
                                             outcome(mean_ndcg, {"qb": ([1, 1], [0.2, 0.2])}, 3)], rtol=1e-12)
