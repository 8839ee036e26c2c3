import unittest

import numpy as np
from recode_check import check, outcome

from bertscore.score import bert_score, compute_idf, greedy_match, rescale_with_baseline, score_corpus
from bertscore.toy import TOY_BASELINE, ToyEncoder, load_pairs

FIXTURE = {}


def setUpModule():
    FIXTURE["encoder"] = ToyEncoder()
    FIXTURE["cands"], FIXTURE["refs"] = load_pairs()


def floats(values):
    return [float(v) for v in values]


class TestComputeIdf(unittest.TestCase):
    def test_smoothed_values(self):
        table = compute_idf([["a", "b", "a"], ["b", "c"], ["d"]])
        check(self, "idf_hand", [[t, float(table[t])] for t in ("a", "b", "c", "d", "zzz")], rtol=1e-12)
        check(self, "idf_hand_default", float(table.default), rtol=1e-12)

    def test_corpus_and_errors(self):
        table = compute_idf(FIXTURE["refs"])
        check(self, "idf_corpus", [[t, float(table[t])] for t in ("the", "cat", "friday", "bread", "unseen")], rtol=1e-12)
        check(
            self,
            "idf_references",
            [outcome(lambda refs: float(compute_idf(refs).default), refs) for refs in ([["x", "y"]], [], [["a"], ["a", "b"]])],
            rtol=1e-12,
        )


class TestGreedyMatch(unittest.TestCase):
    def test_hand_vectors(self):
        cand = [[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]]
        ref = [[2.0, 0.0], [-1.0, 0.5]]
        best_c, best_r = greedy_match(np.array(cand), np.array(ref))
        self.assertEqual(np.shape(best_c), (3,))
        self.assertEqual(np.shape(best_r), (2,))
        check(self, "greedy_hand", [floats(best_c), floats(best_r)], rtol=1e-12, atol=1e-15)
        # only directions matter
        scaled_c, _ = greedy_match(np.array(cand) * 7.5, np.array(ref))
        np.testing.assert_allclose(scaled_c, best_c, rtol=1e-12)

    def test_shapes_and_errors(self):
        enc = FIXTURE["encoder"]
        best_c, best_r = greedy_match(enc.encode(FIXTURE["cands"][4]), enc.encode(FIXTURE["refs"][4]))
        check(self, "greedy_toy", [floats(best_c), floats(best_r)], rtol=1e-12, atol=1e-15)
        pairs = (
            (np.arange(6.0).reshape(2, 3) + 1.0, np.eye(3)[:2]),
            (np.ones((2, 3)), np.ones((2, 4))),
            (np.ones(3), np.ones((2, 3))),
            (np.array([[1.0, -2.0]]), np.array([[0.5, 0.5], [3.0, 1.0]])),
            (np.ones((0, 3)), np.ones((2, 3))),
        )
        check(self, "greedy_shapes", [outcome(greedy_match, cand, ref) for cand, ref in pairs], rtol=1e-12, atol=1e-15)


class TestBertScore(unittest.TestCase):
    def test_uniform_weights(self):
        enc = FIXTURE["encoder"]
        c, r = FIXTURE["cands"][0], FIXTURE["refs"][0]
        p, rec, f = bert_score(enc.encode(c), enc.encode(r))
        check(self, "score_pair0", floats([p, rec, f]), rtol=1e-12)
        # swapping candidate and reference swaps precision and recall
        p2, r2, _ = bert_score(enc.encode(r), enc.encode(c))
        self.assertAlmostEqual(p2, rec, places=12)
        self.assertAlmostEqual(r2, p, places=12)
        same = bert_score(enc.encode(c), enc.encode(c))
        np.testing.assert_allclose(same, [1.0, 1.0, 1.0], rtol=1e-12)

    def test_weights(self):
        enc = FIXTURE["encoder"]
        table = compute_idf(FIXTURE["refs"])
        c, r = FIXTURE["cands"][3], FIXTURE["refs"][3]
        out = bert_score(enc.encode(c), enc.encode(r), table.weights_for(c), table.weights_for(r))
        check(self, "score_pair3_idf", floats(out), rtol=1e-12)
        # weights of the candidate only change the precision
        out2 = bert_score(enc.encode(c), enc.encode(r), table.weights_for(c), None)
        check(self, "score_pair3_cand_weights", floats(out2), rtol=1e-12)
        # a zero weight is allowed: that token simply does not count
        zero_first = np.arange(len(c), dtype=float)
        check(self, "score_pair3_zero_weight", floats(bert_score(enc.encode(c), enc.encode(r), zero_first, None)), rtol=1e-12)
        negative = np.ones(len(r))
        negative[0] = -0.5
        weights = (
            (np.ones(len(c)), None),
            ([1.0, 2.0], None),
            (None, np.zeros(len(r))),
            (None, np.linspace(0.5, 2.0, len(r))),
            (None, negative),
            (np.full(len(c), np.nan), None),
            (np.full(len(c), 2.0), np.ones(len(r))),
        )
        check(
            self,
            "score_pair3_weights",
            [outcome(bert_score, enc.encode(c), enc.encode(r), cw, rw) for cw, rw in weights],
            rtol=1e-12,
        )

    def test_degenerate_similarities(self):
        check(self, "score_orthogonal", floats(bert_score(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]))), atol=1e-15)
        check(self, "score_opposite", floats(bert_score(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[-1.0, -0.2]]))), rtol=1e-12)


class TestRescale(unittest.TestCase):
    def test_values_and_errors(self):
        out = rescale_with_baseline((0.9, 0.8, 0.85), TOY_BASELINE)
        check(self, "rescale_toy", floats(out), rtol=1e-12)
        check(self, "rescale_negative", floats(rescale_with_baseline((0.3, 0.2, 0.25), (0.35, 0.3, 0.32))), rtol=1e-12)
        check(
            self,
            "rescale_baselines",
            [
                outcome(rescale_with_baseline, (0.9, 0.8, 0.85), b)
                for b in ((0.5, 0.4, 0.45), (1.0, 0.5, 0.5), (0.2, 0.3, 1.2), (0.1, 0.2, 0.15), (0.2, 0.3))
            ],
            rtol=1e-12,
        )
        check(
            self,
            "rescale_scores",
            [outcome(rescale_with_baseline, s, TOY_BASELINE) for s in ((0.7, 0.6, 0.65), (0.9, 0.8), [0.95, 0.9, 0.92])],
            rtol=1e-12,
        )


class TestScoreCorpus(unittest.TestCase):
    def test_plain_idf_and_baseline(self):
        enc, cands, refs = FIXTURE["encoder"], FIXTURE["cands"], FIXTURE["refs"]
        p, r, f = score_corpus(cands, refs, enc)
        self.assertEqual(np.shape(p), (len(cands),))
        check(self, "corpus_plain", [floats(p), floats(r), floats(f)], rtol=1e-12)
        check(self, "corpus_idf", [floats(a) for a in score_corpus(cands, refs, enc, idf=True)], rtol=1e-12)
        check(self, "corpus_idf_rescaled", [floats(a) for a in score_corpus(cands, refs, enc, idf=True, baseline=TOY_BASELINE)], rtol=1e-12, atol=1e-15)

    def test_errors(self):
        enc, cands, refs = FIXTURE["encoder"], FIXTURE["cands"], FIXTURE["refs"]
        check(self, "corpus_small_encoder", [floats(a) for a in score_corpus(cands[:2], refs[:2], ToyEncoder(dim=4, seed=3))], rtol=1e-12)
        pairs = ((cands[1:3], refs[1:3]), (cands, refs[:-1]), (cands[-2:], refs[-2:]))
        check(self, "corpus_lengths", [outcome(score_corpus, cs, rs, enc) for cs, rs in pairs], rtol=1e-12)
        pairs = ((cands[:1], refs[:1]), ([], []), (cands[2:5], refs[2:5]))
        check(self, "corpus_sizes", [outcome(score_corpus, cs, rs, enc) for cs, rs in pairs], rtol=1e-12)
