"""Byte-pair encoding with BPE-dropout (Provilkov, Emelianenko and Voita,
"BPE-Dropout: Simple and Effective Subword Regularization", ACL 2020)."""

from subword.codes import EOW
from subword.sampling import MergeDropout


def initial_symbols(word):
    """The characters of ``word`` as a list of strings, EOW appended to the
    last one. Raises ValueError for an empty word or one containing whitespace."""
    raise NotImplementedError


def merge_pair(symbols, pair, positions):
    """A new list where ``pair`` (left, right) is joined into one symbol at each
    start position in ``positions`` (ascending), left to right, skipping a
    position that overlaps a merge already made."""
    raise NotImplementedError


def encode_word(word, ranks, dropout=None):
    """Segment one word with the merge table ``ranks`` (dict pair -> rank).

    ``dropout``: None for plain BPE, or a MergeDropout whose keep() decides,
    for every adjacent pair at every step, whether that merge candidate
    survives. Returns a tuple of subword strings, EOW removed."""
    raise NotImplementedError


def segment(sentence, ranks, dropout=None, separator="@@"):
    """Segment every whitespace-separated word of ``sentence``; returns a flat
    list of subwords, each one that does not end its word followed by
    ``separator``."""
    raise NotImplementedError


def segmentation_counts(word, ranks, p, seed, n):
    """Sample n segmentations of ``word`` with one MergeDropout(p, seed=seed)
    and count them: dict mapping the subwords joined by single spaces to a
    count."""
    raise NotImplementedError
