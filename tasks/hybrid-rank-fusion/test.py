import unittest

from recode_check import check, outcome

from hybrid.data import load_queries
from hybrid.fusion import convex_combination, hybrid_ranking, normalize, reciprocal_rank_fusion

QUERIES = {}


def setUpModule():
    QUERIES.update(load_queries())


def as_sorted_items(scores):
    return [[d, scores[d]] for d in sorted(scores)]


class TestNormalize(unittest.TestCase):
    def test_min_max(self):
        lex, sem = QUERIES["q1"]
        out = normalize(lex, "mm")
        self.assertEqual(set(out), set(lex))
        self.assertAlmostEqual(max(out.values()), 1.0, places=12)
        self.assertAlmostEqual(min(out.values()), 0.0, places=12)
        check(self, "mm_lex_q1", as_sorted_items(out), rtol=1e-12, atol=1e-15)
        check(self, "mm_sem_q1", as_sorted_items(normalize(sem)), rtol=1e-12, atol=1e-15)

    def test_theoretical_min_max(self):
        lex, sem = QUERIES["q1"]
        check(self, "tmm_sem_q1", as_sorted_items(normalize(sem, "tmm", lower_bound=-1.0)), rtol=1e-12, atol=1e-15)
        _, sem2 = QUERIES["q2"]
        check(self, "tmm_sem_q2", as_sorted_items(normalize(sem2, "tmm", lower_bound=-1.0)), rtol=1e-12, atol=1e-15)
        # with the bound equal to the observed minimum it is plain min-max
        self.assertEqual(normalize(lex, "tmm", lower_bound=0.0), normalize(lex, "mm"))
        check(self, "tmm_errors", [outcome(normalize, sem, "tmm", lower_bound=0.1), outcome(normalize, sem, "tmm"),
                                   outcome(normalize, sem, "tmm", lower_bound=0.5), outcome(normalize, sem, "tmm", lower_bound=-3.0)],
              rtol=1e-12, atol=1e-15)

    def test_z_score(self):
        _, sem = QUERIES["q1"]
        out = normalize(sem, "z")
        self.assertAlmostEqual(sum(out.values()), 0.0, places=12)
        check(self, "z_sem_q1", as_sorted_items(out), rtol=1e-12, atol=1e-14)
        lex2, _ = QUERIES["q2"]
        check(self, "z_lex_q2", as_sorted_items(normalize(lex2, "z")), rtol=1e-12, atol=1e-14)

    def test_degenerate_and_errors(self):
        flat = {"a": 2.5, "b": 2.5, "c": 2.5}
        check(self, "degenerate", [as_sorted_items(normalize(flat, m, lower_bound=2.5)) for m in ("mm", "tmm", "z")])
        check(self, "single_tmm", normalize({"a": 3.0}, "tmm", lower_bound=1.0))
        check(self, "normalize_errors", [outcome(normalize, {"x": 1.0, "y": 4.0, "z": 2.5}, "z"), outcome(normalize, flat, "max"),
                                         outcome(normalize, {"x": -1.0, "y": 3.0}, "mm"), outcome(normalize, {}, "mm"),
                                         outcome(normalize, {"y": 0.25, "w": 0.75}, "tmm", lower_bound=0.0)],
              rtol=1e-12, atol=1e-14)


class TestConvexCombination(unittest.TestCase):
    def test_normalizations(self):
        lex, sem = QUERIES["q1"]
        for method in ("mm", "tmm", "z"):
            fused = convex_combination(lex, sem, 0.5, method)
            check(self, f"convex_q1_{method}", as_sorted_items(fused), rtol=1e-12, atol=1e-14)
        lex2, sem2 = QUERIES["q2"]
        check(self, "convex_q2_tmm_0.8", as_sorted_items(convex_combination(lex2, sem2, 0.8, "tmm")), rtol=1e-12, atol=1e-14)
        check(self, "convex_q2_tmm_bounds", as_sorted_items(convex_combination(lex2, sem2, 0.6, "tmm", lex_lower=-2.0, sem_lower=-0.5)), rtol=1e-12, atol=1e-14)

    def test_endpoints_and_errors(self):
        lex, sem = QUERIES["q2"]
        only_lex = convex_combination(lex, sem, 0.0, "mm")
        only_sem = convex_combination(lex, sem, 1.0, "mm")
        check(self, "convex_alpha0", as_sorted_items(only_lex), rtol=1e-12, atol=1e-15)
        check(self, "convex_alpha1", as_sorted_items(only_sem), rtol=1e-12, atol=1e-15)
        check(self, "convex_default_normalization", as_sorted_items(convex_combination(lex, sem, 0.25)), rtol=1e-12, atol=1e-15)
        check(self, "convex_alpha_mixed", [outcome(convex_combination, lex, sem, a) for a in (0.4, -0.1, 1.5, 0.7, float("nan"), 0.05)],
              rtol=1e-12, atol=1e-15)
        check(self, "convex_candidates_differ", [
            outcome(convex_combination, {d: s for d, s in lex.items() if d != "p7"}, {d: s for d, s in sem.items() if d != "p7"}, 0.5),
            outcome(convex_combination, lex, {d: s for d, s in sem.items() if d != "p7"}, 0.5),
            outcome(convex_combination, lex, sem, 0.35)], rtol=1e-12, atol=1e-15)


class TestReciprocalRankFusion(unittest.TestCase):
    def test_default_eta(self):
        lex, sem = QUERIES["q1"]
        fused = reciprocal_rank_fusion(lex, sem)
        check(self, "rrf_q1", as_sorted_items(fused), rtol=1e-12)
        # q2 has equal BM25 scores (p2, p3) and equal cosines (p1, p7): ranks follow the document ids
        lex2, sem2 = QUERIES["q2"]
        check(self, "rrf_q2_ties", as_sorted_items(reciprocal_rank_fusion(lex2, sem2)), rtol=1e-12)

    def test_separate_etas_and_errors(self):
        lex, sem = QUERIES["q1"]
        check(self, "rrf_q1_eta_10_80", as_sorted_items(reciprocal_rank_fusion(lex, sem, eta_lex=10, eta_sem=80)), rtol=1e-12)
        check(self, "rrf_q1_eta_0", as_sorted_items(reciprocal_rank_fusion(lex, sem, eta_lex=0, eta_sem=0)), rtol=1e-12)
        # only the order of the scores matters
        squashed = {d: s / 100.0 for d, s in lex.items()}
        self.assertEqual(reciprocal_rank_fusion(squashed, sem), reciprocal_rank_fusion(lex, sem))
        check(self, "rrf_eta_mixed", [outcome(reciprocal_rank_fusion, lex, sem, **kwargs)
                                      for kwargs in ({"eta_lex": 5}, {"eta_lex": -1}, {"eta_sem": 0.5}, {"eta_sem": float("inf")},
                                                     {"eta_lex": 20, "eta_sem": 3})], rtol=1e-12)


class TestHybridRanking(unittest.TestCase):
    def test_convex_top_k(self):
        lex, sem = QUERIES["q1"]
        top = hybrid_ranking(lex, sem, 5, alpha=0.8)
        self.assertTrue(all(isinstance(item, tuple) and len(item) == 2 for item in top))
        check(self, "top_q1_convex_tmm", top, rtol=1e-12, atol=1e-15)
        lex2, sem2 = QUERIES["q2"]
        check(self, "top_q2_convex_z", hybrid_ranking(lex2, sem2, 3, method="convex", alpha=0.3, normalization="z"), rtol=1e-12, atol=1e-14)

    def test_rrf_top_k_and_errors(self):
        lex, sem = QUERIES["q1"]
        # d01 (ranks 1 and 6) and d06 (ranks 6 and 1) have equal fused scores: the smaller id comes first
        check(self, "top_q1_rrf", hybrid_ranking(lex, sem, 12, method="rrf"), rtol=1e-12)
        lex2, sem2 = QUERIES["q2"]
        check(self, "top_q2_rrf_k20", hybrid_ranking(lex2, sem2, 20, method="rrf", eta_lex=2, eta_sem=30), rtol=1e-12)
        check(self, "top_q2_rrf_k1", hybrid_ranking(lex2, sem2, 1, method="rrf"), rtol=1e-12)
        check(self, "top_errors", [outcome(hybrid_ranking, lex, sem, **kwargs)
                                   for kwargs in ({"k": 2, "method": "rrf"}, {"k": 0, "method": "rrf"}, {"k": 2.0, "method": "rrf"},
                                                  {"k": 4, "method": "convex", "alpha": 0.6}, {"k": 3, "method": "borda"},
                                                  {"k": 3, "method": "convex"}, {"k": 30, "method": "rrf"})], rtol=1e-12, atol=1e-15)
