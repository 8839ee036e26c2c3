"""Log-domain helpers."""

import math


def logsumexp(values):
    """log(sum(exp(v))) without overflow (shifted by the maximum).

    Raises ValueError for an empty sequence."""
    values = list(values)
    if not values:
        raise ValueError("logsumexp of an empty sequence")
    m = max(values)
    if m == -math.inf:
        return -math.inf
    return m + math.log(math.fsum(math.exp(v - m) for v in values))


def log_softmax(logits):
    """The list log(softmax(logits)) for one row of logits, computed in the log domain."""
    logits = list(logits)
    if not logits:
        raise ValueError("log_softmax of an empty sequence")
    m = max(logits)
    log_total = math.log(math.fsum(math.exp(z - m) for z in logits))
    # (z - m) - log_total, not z - logsumexp: keeps the precision of
    # log-probabilities close to zero when the logits are large.
    return [(z - m) - log_total for z in logits]


def mean(values):
    """Arithmetic mean (exactly rounded sum); ValueError for an empty sequence."""
    values = list(values)
    if not values:
        raise ValueError("mean of an empty sequence")
    return math.fsum(values) / len(values)
