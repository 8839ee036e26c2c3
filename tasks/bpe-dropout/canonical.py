"""Byte-pair encoding with BPE-dropout (Provilkov, Emelianenko and Voita,
"BPE-Dropout: Simple and Effective Subword Regularization", ACL 2020)."""

from subword.codes import EOW
from subword.sampling import MergeDropout


def initial_symbols(word):
    """The characters of ``word``, the last one carrying the end-of-word mark."""
    if not isinstance(word, str) or word == "" or any(c.isspace() for c in word):
        raise ValueError(f"a word is a non-empty string without whitespace, got {word!r}")
    # Sec. 1: segmentation starts from the characters of the word; the
    # end-of-word mark travels with the last character (as in the merge table).
    return list(word[:-1]) + [word[-1] + EOW]


def merge_pair(symbols, pair, positions):
    """Join ``pair`` at the given start positions, left to right, skipping a
    position that overlaps a merge already made. Returns a new list."""
    merged = pair[0] + pair[1]
    out = []
    i = 0
    for j in positions:
        if symbols[j] != pair[0] or j + 1 >= len(symbols) or symbols[j + 1] != pair[1]:
            raise ValueError(f"no pair {pair!r} at position {j}")
        # In "x x x" the occurrences at 0 and 1 overlap: once 0 is merged, the
        # occurrence at 1 no longer exists.
        if j < i:
            continue
        out.extend(symbols[i:j])
        out.append(merged)
        i = j + 2
    out.extend(symbols[i:])
    return out


def encode_word(word, ranks, dropout=None):
    """Segment one word with the merge table ``ranks``; BPE-dropout when a
    MergeDropout is given. Returns a tuple of subword strings without EOW."""
    symbols = initial_symbols(word)
    while len(symbols) > 1:
        # Algorithm 1: collect the merges possible in the current segmentation
        # and remove each with probability p ("the only difference from BPE").
        # One keep() decision is drawn for every adjacent pair, left to right,
        # before the table is consulted, so a seeded sampler reproduces the
        # same segmentation.
        candidates = []
        for i in range(len(symbols) - 1):
            pair = (symbols[i], symbols[i + 1])
            if (dropout is None or dropout.keep()) and pair in ranks:
                candidates.append((ranks[pair], i, pair))
        # Algorithm 1: stop when no merge is left (with p = 1 the word stays
        # split into characters).
        if not candidates:
            break
        # Apply the surviving merge with the highest priority (the one learned
        # first, lowest rank) at every surviving position where it occurs.
        best = min(candidates)[2]
        positions = [i for _, i, pair in candidates if pair == best]
        symbols = merge_pair(symbols, best, positions)
    # The end-of-word mark, glued to the last symbol, is not part of the output.
    symbols[-1] = symbols[-1][: -len(EOW)]
    return tuple(symbols)


def segment(sentence, ranks, dropout=None, separator="@@"):
    """Segment a whitespace-separated sentence: a flat list of subwords where
    every subword that does not end a word carries ``separator``."""
    out = []
    for word in sentence.split():
        pieces = encode_word(word, ranks, dropout)
        out.extend(piece + separator for piece in pieces[:-1])
        out.append(pieces[-1])
    return out


def segmentation_counts(word, ranks, p, seed, n):
    """How often each segmentation of ``word`` comes out in n BPE-dropout
    samples drawn with one MergeDropout(p, seed=seed): dict from the subwords
    joined by single spaces to a count."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    # Sec. 2, training: each time a word is segmented during training a new
    # segmentation is sampled; the same sampler carries on from word to word.
    sampler = MergeDropout(p, seed=seed)
    counts = {}
    for _ in range(n):
        key = " ".join(encode_word(word, ranks, sampler))
        counts[key] = counts.get(key, 0) + 1
    return counts
