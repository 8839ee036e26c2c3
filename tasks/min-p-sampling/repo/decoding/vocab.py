"""Vocabulary and numeric helpers shared by the samplers."""

import math

NEG_INF = float("-inf")


class Vocab:
    """A fixed list of tokens; a token's id is its position in the list."""

    def __init__(self, tokens):
        if len(set(tokens)) != len(tokens):
            raise ValueError("tokens must be unique")
        self.tokens = list(tokens)
        self._ids = {t: i for i, t in enumerate(self.tokens)}

    def __len__(self):
        return len(self.tokens)

    def id_of(self, token):
        return self._ids[token]

    def token_of(self, index):
        return self.tokens[index]


def logsumexp(values):
    """log(sum(exp(v))) computed without overflow (shifts by the maximum).

    Entries equal to -inf contribute nothing. Returns -inf when every entry is
    -inf. Raises ValueError for an empty sequence."""
    values = list(values)
    if not values:
        raise ValueError("logsumexp of an empty sequence")
    m = max(values)
    if m == NEG_INF:
        return NEG_INF
    return m + math.log(sum(math.exp(v - m) for v in values))


def normalize(weights):
    """Scale non-negative weights so they sum to 1. Raises ValueError when the
    total is not positive."""
    total = math.fsum(weights)
    if not total > 0.0:
        raise ValueError("cannot normalise weights whose sum is not positive")
    return [w / total for w in weights]


def draw_index(probs, u):
    """Inverse-CDF draw: the first index whose cumulative probability exceeds
    ``u`` (a uniform number in [0, 1)). Indices with zero probability are
    never returned."""
    acc = 0.0
    last = None
    for i, p in enumerate(probs):
        if p <= 0.0:
            continue
        acc += p
        last = i
        if u < acc:
            return i
    if last is None:
        raise ValueError("no index has positive probability")
    return last  # rounding left the total just below u


# A toy next-token distribution used in examples and tests.
TOY_VOCAB = Vocab(["the", "a", "cat", "dog", "sat", "ran", "on", "mat", "<eos>", "quantum"])
TOY_LOGITS = [3.2, 2.9, 1.1, 1.0, 0.4, 0.3, -0.5, -1.2, -2.0, -6.0]
