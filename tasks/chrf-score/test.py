import unittest

from recode_check import check, outcome

from mteval.chrf import chrf_from_statistics, corpus_chrf, ngram_statistics, sentence_chrf
from mteval.testset import load_testset


def as_lists(stats):
    return [list(s) for s in stats]


class TestNgramStatistics(unittest.TestCase):
    def test_character_orders(self):
        stats = ngram_statistics("the cat sat", "the cat sat down")
        self.assertEqual(len(stats), 6)
        check(self, "stats_char_cat", as_lists(stats))
        # whitespace is not part of any character n-gram
        self.assertEqual(as_lists(ngram_statistics("a b c", "abc")), as_lists(ngram_statistics("abc", "abc")))
        # a repeated n-gram matches at most as often as it occurs in the reference
        check(self, "stats_clipped", as_lists(ngram_statistics("aaaa", "aa", char_order=3)))

    def test_word_orders(self):
        stats = ngram_statistics("Hello, world! Hello again.", "Hello world, hello again!", char_order=2, word_order=2)
        self.assertEqual(len(stats), 4)
        check(self, "stats_words", as_lists(stats))
        check(self, "stats_words_only_unigrams", as_lists(ngram_statistics("the cat", "the cat sat", char_order=1, word_order=1)))

    def test_short_reference_and_errors(self):
        # The reference has no 5- or 6-grams: those orders count nothing on either side.
        check(self, "stats_short_reference", as_lists(ngram_statistics("It rains.", "Rain.")))
        check(self, "stats_empty_hypothesis", as_lists(ngram_statistics("", "abc", char_order=2)))
        orders = ({"char_order": 3}, {"char_order": 0}, {"word_order": -1}, {"char_order": 2, "word_order": 1}, {"char_order": 2.0})
        check(self, "stats_orders", [outcome(ngram_statistics, "a", "a", **kwargs) for kwargs in orders])


class TestChrfFromStatistics(unittest.TestCase):
    STATS = [(10, 12, 8), (9, 11, 5), (8, 10, 3), (7, 9, 1)]

    def test_beta(self):
        values = [chrf_from_statistics(self.STATS, beta) for beta in (1.0, 2.0, 3.0, 0.5)]
        check(self, "from_stats_betas", values, rtol=1e-12)
        check(self, "from_stats_default_beta", chrf_from_statistics(self.STATS), rtol=1e-12)

    def test_effective_order_and_degenerate(self):
        # Orders where the hypothesis or the reference has no n-gram are left out of the averages.
        check(self, "from_stats_effective", chrf_from_statistics([(5, 6, 4), (4, 5, 2), (0, 4, 0), (3, 0, 0), (0, 0, 0)]), rtol=1e-12)
        self.assertEqual(chrf_from_statistics([(0, 0, 0), (0, 0, 0)]), 0.0)
        check(self, "from_stats_no_match", chrf_from_statistics([(3, 4, 0), (2, 3, 0)]), rtol=0.0, atol=0.0)
        check(self, "from_stats_perfect", chrf_from_statistics([(4, 4, 4), (3, 3, 3)], beta=3.0), rtol=1e-12)
        betas = (1.5, 0.0, -1.0, 0.25, float("nan"), float("inf"), 4.0)
        check(self, "from_stats_beta_range", [outcome(chrf_from_statistics, self.STATS, b) for b in betas], rtol=1e-12)


class TestSentenceChrf(unittest.TestCase):
    def test_single_reference(self):
        self.assertAlmostEqual(sentence_chrf("The cat sat on the mat.", ["The cat sat on the mat."]), 100.0, places=9)
        pairs = [
            ("He has read the book yesterday evening.", "He read the book yesterday evening."),
            ("She buyed three apples.", "She bought three apples."),
            ("It rains.", "It is raining."),
        ]
        check(self, "sentence_chrf", [sentence_chrf(h, [r]) for h, r in pairs], rtol=1e-12)
        check(self, "sentence_chrf_beta1", [sentence_chrf(h, [r], beta=1.0) for h, r in pairs], rtol=1e-12)
        check(self, "sentence_chrfpp", [sentence_chrf(h, [r], word_order=2) for h, r in pairs], rtol=1e-12)

    def test_best_reference_and_errors(self):
        hyp = "We will meet us at the station at eight o'clock."
        refs = ["We are meeting at the station at 8.", "We will meet at the station at eight o'clock."]
        best = sentence_chrf(hyp, refs)
        check(self, "sentence_best_of_two", best, rtol=1e-12)
        self.assertEqual(best, sentence_chrf(hyp, list(reversed(refs))))
        check(self, "sentence_best_chrfpp", sentence_chrf(hyp, refs, word_order=2, beta=1.0), rtol=1e-12)
        lists = (refs[:1], [], [refs[1], "We meet at eight."])
        check(self, "sentence_reference_lists", [outcome(sentence_chrf, hyp, r) for r in lists], rtol=1e-12)
        kinds = (["We will meet at the station."], "We will meet at the station.", ["At eight."])
        check(self, "sentence_reference_types", [outcome(sentence_chrf, hyp, r) for r in kinds], rtol=1e-12)


class TestCorpusChrf(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.hyps, cls.refs = load_testset()

    def test_corpus_scores(self):
        check(self, "corpus_chrf", corpus_chrf(self.hyps, self.refs), rtol=1e-12)
        check(self, "corpus_chrfpp", corpus_chrf(self.hyps, self.refs, word_order=2), rtol=1e-12)
        check(self, "corpus_chrf_beta3_order4", corpus_chrf(self.hyps, self.refs, char_order=4, beta=3.0), rtol=1e-12)

    def test_pooled_not_averaged(self):
        first_refs = [[r[0]] for r in self.refs]
        pooled = corpus_chrf(self.hyps, first_refs)
        mean = sum(sentence_chrf(h, r) for h, r in zip(self.hyps, first_refs)) / len(self.hyps)
        self.assertNotAlmostEqual(pooled, mean, places=3)
        check(self, "corpus_first_reference", pooled, rtol=1e-12)
        # "ab" scores the same against both references (P and R swap), so the first
        # reference's counts must enter the pooled sums.
        self.assertEqual(sentence_chrf("ab", ["abcd"], char_order=1, beta=1.0), sentence_chrf("ab", ["a"], char_order=1, beta=1.0))
        tie = corpus_chrf(["ab", "xyz"], [["abcd", "a"], ["xyz"]], char_order=1, beta=1.0)
        check(self, "corpus_tie_first_reference", tie, rtol=1e-12)
        short = corpus_chrf(["It rains.", "Yes."], [["Rain."], ["Yes!"]], word_order=2)
        check(self, "corpus_short_references", short, rtol=1e-12)
        pairs = ((self.hyps[:3], self.refs[:3]), (self.hyps, self.refs[:-1]), (self.hyps[2:], self.refs[2:]))
        check(self, "corpus_lengths", [outcome(corpus_chrf, h, r) for h, r in pairs], rtol=1e-12)
        pairs = ((self.hyps[:1], self.refs[:1]), ([], []), (self.hyps[-2:], self.refs[-2:]))
        check(self, "corpus_sizes", [outcome(corpus_chrf, h, r) for h, r in pairs], rtol=1e-12)
