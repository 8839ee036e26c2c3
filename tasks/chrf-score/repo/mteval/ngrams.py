"""N-gram extraction shared by the character- and word-level metrics."""

from collections import Counter

# ASCII punctuation, as in Python's string.punctuation.
PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def char_ngrams(text, n):
    """Counter of the character n-grams of ``text`` with all whitespace removed.

    "a cat" gives the same n-grams as "acat". Returns an empty Counter when the
    text has fewer than n non-whitespace characters. Raises ValueError for n < 1."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    line = "".join(text.split())
    return Counter(line[i : i + n] for i in range(len(line) - n + 1))


def word_ngrams(words, n):
    """Counter of the word n-grams of the list ``words``; an n-gram is its words
    joined by single spaces. Raises ValueError for n < 1."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    return Counter(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))


def split_punctuation(sentence):
    """Words of ``sentence`` for word n-grams: split on whitespace, then one
    punctuation mark at the end of a word (else at its start) becomes a word of
    its own. "Hello, world!" -> ["Hello", ",", "world", "!"]; one-character
    words stay as they are."""
    words = []
    for w in sentence.split():
        if len(w) == 1:
            words.append(w)
        elif w[-1] in PUNCTUATION:
            words.extend([w[:-1], w[-1]])
        elif w[0] in PUNCTUATION:
            words.extend([w[0], w[1:]])
        else:
            words.append(w)
    return words
