"""Toy stand-ins for the pieces around BERTScore: a deterministic contextual
encoder (ToyEncoder), tokenised example sentences (load_pairs) and the
rescaling baseline measured under the encoder (TOY_BASELINE).

ToyEncoder: every token type has a fixed random vector; a token's embedding
adds a fraction of its neighbours' vectors, so the same word gets slightly
different embeddings in different contexts, as with a real contextual model.

TOY_BASELINE is the average (precision, recall, F1) of the 30 unrelated pairs
of the example sentences (candidate i with reference j, i != j) under
ToyEncoder() with its defaults and no idf weighting, rounded to four
decimals."""

import random
import zlib

import numpy as np


class ToyEncoder:
    def __init__(self, dim=16, seed=0, context=0.35):
        self.dim = dim
        self.seed = seed
        self.context = context
        self._cache = {}

    def token_vector(self, token):
        """The fixed vector of a token type (float64 array of length dim)."""
        if token not in self._cache:
            rng = random.Random(zlib.crc32(token.encode("utf-8")) * 1000003 + self.seed)
            self._cache[token] = np.array([rng.gauss(0.0, 1.0) for _ in range(self.dim)], dtype=np.float64)
        return self._cache[token]

    def encode(self, tokens):
        """Contextual embeddings of a token list: float64 array (len(tokens), dim).
        Raises ValueError for an empty list."""
        if len(tokens) == 0:
            raise ValueError("cannot encode an empty token list")
        base = np.stack([self.token_vector(t) for t in tokens])
        out = base.copy()
        out[1:] += self.context * base[:-1]
        out[:-1] += self.context * base[1:]
        return out


# Tokenised system outputs (candidates) and references, aligned.
CANDIDATES = [
    "the cat sat on the mat".split(),
    "a dog is running in the park".split(),
    "he bought some fresh bread this morning".split(),
    "the meeting was moved to friday".split(),
    "people like to read books at night".split(),
    "it is raining heavily today".split(),
]

REFERENCES = [
    "a cat was sitting on the mat".split(),
    "the dog runs through the park".split(),
    "this morning he bought fresh bread".split(),
    "the meeting has been postponed to friday".split(),
    "many people enjoy reading books in the evening".split(),
    "today it rains a lot".split(),
]


def load_pairs():
    """(candidates, references): two lists of token lists, aligned."""
    return [list(c) for c in CANDIDATES], [list(r) for r in REFERENCES]


# Baseline (b_P, b_R, b_F) for rescaling, measured as described above.
TOY_BASELINE = (0.3688, 0.3843, 0.3727)
