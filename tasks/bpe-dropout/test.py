import unittest

from recode_check import check, outcome

from subword.bpe import encode_word, initial_symbols, merge_pair, segment, segmentation_counts
from subword.codes import parse_merges, toy_ranks
from subword.sampling import MergeDropout

WORDS = ["lower", "lowest", "newest", "the", "tokenizers", "slower", "widest", "merges", "rarer", "a", "unseen"]


class TestInitialSymbols(unittest.TestCase):
    def test_characters_and_errors(self):
        check(self, "initial_lower", initial_symbols("lower"))
        check(self, "initial_single", initial_symbols("a"))
        check(self, "initial_word_outcomes", [outcome(initial_symbols, word) for word in ("low", "", "two words", "xy", None, "b")])


class TestMergePair(unittest.TestCase):
    def test_merges(self):
        check(self, "merge_first", merge_pair(["l", "o", "w", "e", "r</w>"], ("l", "o"), [0]))
        check(self, "merge_two_places", merge_pair(["a", "b", "c", "a", "b</w>"], ("a", "b"), [0]))
        check(self, "merge_all_places", merge_pair(["a", "b", "c", "a", "b", "c</w>"], ("a", "b"), [0, 3]))
        # "x x x x": the occurrence at 1 overlaps the merge at 0, the one at 2 does not
        check(self, "merge_overlap", merge_pair(["x", "x", "x", "x", "y</w>"], ("x", "x"), [0, 1, 2]))
        symbols = ["l", "o", "w</w>"]
        merge_pair(symbols, ("l", "o"), [0])
        self.assertEqual(symbols, ["l", "o", "w</w>"], "merge_pair must return a new list")
        check(self, "merge_position_outcomes", [outcome(merge_pair, ["l", "o", "w</w>"], pair, [position])
                                                 for pair, position in ((("o", "w</w>"), 1), (("o", "w"), 1), (("l", "o"), 0), (("w</w>", "x"), 2))])


class TestEncodeWord(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ranks = toy_ranks()

    def test_deterministic(self):
        check(self, "encode_plain", [list(encode_word(w, self.ranks)) for w in WORDS])
        sampler = MergeDropout(0.0, seed=3)
        self.assertEqual([encode_word(w, self.ranks, sampler) for w in WORDS], [encode_word(w, self.ranks) for w in WORDS])
        self.assertEqual(sampler.draws, 0)
        # merges apply in the order of the table, not greedily left to right
        ranks = parse_merges("b c</w>\na b\na bc</w>\n")
        check(self, "encode_priority", list(encode_word("abc", ranks)))

    def test_full_dropout(self):
        sampler = MergeDropout(1.0, seed=0)
        check(self, "encode_p1", [list(encode_word(w, self.ranks, sampler)) for w in ("lowest", "newer")])

    def test_seeded_dropout(self):
        sampler = MergeDropout(0.1, seed=7)
        out = [list(encode_word(w, self.ranks, sampler)) for w in WORDS * 3]
        check(self, "encode_p0.1_seed7", out)
        # one keep() decision per adjacent pair of symbols, at every step
        check(self, "encode_p0.1_draws", sampler.draws)
        # words where the chosen pair occurs several times in one step
        sampler = MergeDropout(0.3, seed=2)
        check(self, "encode_repeated_pairs", [list(encode_word(w, self.ranks, sampler)) for w in ("lowlow", "wewewe", "thethe", "tototo") * 4])
        check(self, "encode_repeated_pairs_draws", sampler.draws)
        sampler = MergeDropout(0.5, seed=11)
        check(self, "encode_p0.5_seed11", [list(encode_word("tokenizers", self.ranks, sampler)) for _ in range(12)])


class TestSegment(unittest.TestCase):
    def test_sentence(self):
        ranks = toy_ranks()
        sentence = "the newest  tokenizers learn slower merges"
        check(self, "segment_plain", segment(sentence, ranks))
        check(self, "segment_separator", segment("lowest widest", ranks, separator="|"))
        check(self, "segment_dropout", segment(sentence, ranks, MergeDropout(0.2, seed=5)))
        check(self, "segment_empty", segment("   ", ranks))


class TestSegmentationCounts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ranks = toy_ranks()

    def test_distribution(self):
        counts = segmentation_counts("lowest", self.ranks, 0.1, 0, 400)
        self.assertEqual(sum(counts.values()), 400)
        check(self, "counts_lowest", counts)
        check(self, "counts_tokenizers", segmentation_counts("tokenizers", self.ranks, 0.3, 1, 200))
        self.assertEqual(segmentation_counts("newest", self.ranks, 0.0, 9, 5), {"newest": 5})
        check(self, "counts_single", segmentation_counts("widest", self.ranks, 0.5, 4, 1))
        check(self, "counts_n_outcomes", [outcome(segmentation_counts, "lowest", self.ranks, 0.1, 0, n) for n in (3, 0, -1, 12, 2.0, 1)])
