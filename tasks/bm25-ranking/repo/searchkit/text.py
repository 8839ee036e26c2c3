"""Text processing shared by indexing and querying: both sides must produce
terms the same way or nothing matches."""

import re

STOPWORDS = frozenset(
    "a an and are as at be by for from has in is it its of on or that the to was were with".split()
)

_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text):
    """Lower-case ``text``, split it into runs of letters and digits, and drop
    stop words. Returns a list of terms in order (repeats kept)."""
    if not isinstance(text, str):
        raise TypeError(f"tokenize expects a str, got {type(text).__name__}")
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def term_counts(terms):
    """Map each term to the number of times it occurs in ``terms``."""
    counts = {}
    for t in terms:
        counts[t] = counts.get(t, 0) + 1
    return counts
