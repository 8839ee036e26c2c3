"""Categorical (softmax) policies given by lists of logits."""

import math


def log_softmax(logits):
    """log softmax(logits), shifted by the maximum so large logits do not overflow."""
    logits = [float(z) for z in logits]
    if not logits:
        raise ValueError("log_softmax of an empty list")
    m = max(logits)
    lse = m + math.log(math.fsum(math.exp(z - m) for z in logits))
    return [z - lse for z in logits]


def categorical_entropy(logits):
    """Entropy -sum_a p(a) log p(a) (in nats) of the softmax distribution of one list of logits."""
    logp = log_softmax(logits)
    return -math.fsum(math.exp(lp) * lp for lp in logp)


def log_prob(logits, action):
    """log p(action) under the softmax of logits."""
    return log_softmax(logits)[action]
