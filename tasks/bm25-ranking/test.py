import unittest

from recode_check import check, outcome
from searchkit.bm25 import bm25_score, idf, rank
from searchkit.corpus import load_corpus


class TestIdf(unittest.TestCase):
    def test_values(self):
        pairs = [(10, 1), (10, 5), (1000, 3), (7, 0), (2, 1)]
        check(self, "idf_values", [idf(n, df) for n, df in pairs], rtol=1e-12)

    def test_common_terms_and_errors(self):
        values = [idf(20, df) for df in range(0, 21)]
        self.assertTrue(all(v > 0.0 for v in values), "idf must stay positive, even for a term in every document")
        self.assertTrue(all(a > c for a, c in zip(values, values[1:])), "idf must decrease as the term gets more common")
        check(self, "idf_common", [values[11], values[15], values[20]], rtol=1e-12)
        calls = ((12, 4), (5, 6), (5, -1), (9, 9), (0, 0), (3.0, 1), (1, 0))
        check(self, "idf_args", [outcome(idf, *args) for args in calls], rtol=1e-12)


class TestScore(unittest.TestCase):
    DF = {"cat": 3, "mat": 2, "dog": 8, "rare": 1}

    def test_saturation(self):
        out = []
        for tf in range(1, 7):
            doc = ["cat"] * tf + ["filler"] * (10 - tf)
            out.append(bm25_score(["cat"], doc, self.DF, 20, 10.0))
        self.assertTrue(all(a < c for a, c in zip(out, out[1:])))
        check(self, "score_saturation", out, rtol=1e-12)
        check(self, "score_k1_0", bm25_score(["cat"], ["cat"] * 4 + ["x"] * 6, self.DF, 20, 10.0, k1=0.0), rtol=1e-12)
        check(self, "score_k1_3", bm25_score(["cat"], ["cat"] * 4 + ["x"] * 6, self.DF, 20, 10.0, k1=3.0), rtol=1e-12)

    def test_length_normalisation(self):
        out = {}
        for b in (0.0, 0.75, 1.0):
            for length in (4, 10, 40):
                doc = ["cat", "mat"] + ["x"] * (length - 2)
                out[f"b={b},len={length}"] = bm25_score(["cat", "mat"], doc, self.DF, 20, 10.0, b=b)
        check(self, "score_length_norm", out, rtol=1e-12)

    def test_query_terms_and_errors(self):
        doc = ["cat", "sat", "mat", "cat", "rare"]
        once = bm25_score(["cat", "rare"], doc, self.DF, 20, 6.0)
        twice = bm25_score(["cat", "cat", "rare", "rare", "zebra"], doc, self.DF, 20, 6.0)
        self.assertEqual(once, twice, "a repeated or absent query term must not change the score")
        check(self, "score_query_set", once, rtol=1e-12)
        self.assertEqual(bm25_score(["zebra"], doc, self.DF, 20, 6.0), 0.0)
        self.assertEqual(bm25_score(["cat"], [], self.DF, 20, 6.0), 0.0)
        params = ({"k1": 2.0}, {"k1": -0.5}, {"b": 1.5}, {"b": 0.4}, {"b": -0.1}, {"k1": 0.5, "b": 1.0})
        check(
            self,
            "score_params",
            [outcome(bm25_score, ["cat"], doc, self.DF, 20, 6.0, **kwargs) for kwargs in params],
            rtol=1e-12,
        )
        check(self, "score_avgdl_range", [outcome(bm25_score, ["cat"], doc, self.DF, 20, a) for a in (3.5, 0.0, 12.0)], rtol=1e-12)


class TestRank(unittest.TestCase):
    def test_top_k(self):
        docs = load_corpus()
        check(self, "rank_relevance", rank("probabilistic relevance ranking", docs, k=5), rtol=1e-9)
        check(self, "rank_term_frequency", rank("Term frequency and document length", docs, k=4), rtol=1e-9)

    def test_ties_and_edges(self):
        docs = load_corpus()
        res = rank("Cat? Mat!", docs, k=10)
        self.assertTrue(all(isinstance(r, tuple) and len(r) == 2 for r in res))
        check(self, "rank_ties", res, rtol=1e-9)
        # equal scores are ordered by doc_id, whatever the collection order
        check(self, "rank_ties_reversed", rank("cat mat", list(reversed(docs)), k=2), rtol=1e-9)
        self.assertEqual(rank("the of and", docs), [], "a query of stop words matches nothing")
        self.assertEqual(rank("zebra giraffe", docs), [])
        check(self, "rank_k_range", [outcome(rank, "cat", docs, k=k) for k in (1, 0, -3, 3, 2.5)], rtol=1e-9)
        check(self, "rank_collections", [outcome(rank, "cat", c, k=3) for c in (docs[1:6], [], docs[2:])], rtol=1e-9)

    def test_parameters(self):
        docs = load_corpus()
        check(self, "rank_k1_2_b_0.3", rank("ranking documents", docs, k=6, k1=2.0, b=0.3), rtol=1e-9)
        check(self, "rank_b_1", rank("ranking documents", docs, k=6, b=1.0), rtol=1e-9)
