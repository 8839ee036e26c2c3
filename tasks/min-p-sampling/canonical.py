"""Min-p sampling (Nguyen et al., "Turning Up the Heat: Min-p Sampling for
Creative and Coherent LLM Outputs", ICLR 2025)."""

import math

from decoding.vocab import draw_index, logsumexp, normalize


def softmax_with_temperature(logits, temperature=1.0):
    """Probabilities softmax(logits / temperature) as a list of floats.

    logits: sequence of floats (may contain -inf); temperature: float > 0.
    Raises ValueError for an empty sequence or a temperature that is not a
    positive finite number."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
        raise ValueError("temperature must be a number")
    if not (temperature > 0.0 and math.isfinite(temperature)):
        raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
    logits = list(logits)
    if not logits:
        raise ValueError("logits must not be empty")
    if any(math.isnan(z) or z == math.inf for z in logits):
        raise ValueError("logits must be finite or -inf")
    # Eq. (1): p_i = exp(z_i / T) / sum_j exp(z_j / T), evaluated in the log
    # domain with the repository's logsumexp so large logits do not overflow.
    scaled = [z / temperature for z in logits]
    log_norm = logsumexp(scaled)
    if log_norm == -math.inf:
        raise ValueError("every logit is -inf")
    return [math.exp(s - log_norm) for s in scaled]


def min_p_filter(probs, p_base):
    """Keep the tokens whose probability is at least p_base times the largest
    probability, zero the others, and renormalise the kept ones to sum to 1.

    probs: sequence of non-negative floats summing to 1; p_base: float in
    [0, 1]. Returns a new list of the same length. Raises ValueError for
    p_base outside [0, 1] or an empty sequence."""
    if isinstance(p_base, bool) or not isinstance(p_base, (int, float)) or not 0.0 <= p_base <= 1.0:
        raise ValueError(f"p_base must be a number in [0, 1], got {p_base!r}")
    probs = list(probs)
    if not probs:
        raise ValueError("probs must not be empty")
    # Eq. (2): the threshold scales with the model's confidence, p_scaled = p_base * p_max.
    p_max = max(probs)
    threshold = p_base * p_max
    # Eq. (3): the sampling pool keeps tokens with p_i >= p_scaled (the top token
    # always qualifies, since p_base <= 1).
    kept = [p if p >= threshold else 0.0 for p in probs]
    # Eq. (4): renormalise over the pool.
    return normalize(kept)


def min_p_sample(logits, p_base, temperature, rng):
    """Draw one token id with min-p sampling.

    Temperature first, then the min-p filter, then one inverse-CDF draw using
    exactly one call of rng.random(). Returns an int index into logits."""
    # Temperature scaling comes first, so the threshold is set on the
    # temperature-scaled distribution the token is drawn from.
    probs = softmax_with_temperature(logits, temperature)
    pool = min_p_filter(probs, p_base)
    # One uniform number per token, inverted through the pool's CDF.
    return draw_index(pool, rng.random())
