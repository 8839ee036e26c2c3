"""Min-p sampling (Nguyen et al., "Turning Up the Heat: Min-p Sampling for
Creative and Coherent LLM Outputs", ICLR 2025)."""

from decoding.vocab import draw_index, logsumexp, normalize


def softmax_with_temperature(logits, temperature=1.0):
    """Probabilities softmax(logits / temperature) as a list of floats.

    logits: sequence of floats (may contain -inf); temperature: float > 0.
    Raises ValueError for an empty sequence or a temperature that is not a
    positive finite number."""
    raise NotImplementedError


def min_p_filter(probs, p_base):
    """Keep the tokens whose probability is at least p_base times the largest
    probability, zero the others, and renormalise the kept ones to sum to 1.

    probs: sequence of non-negative floats summing to 1; p_base: float in
    [0, 1]. Returns a new list of the same length. Raises ValueError for
    p_base outside [0, 1] or an empty sequence."""
    raise NotImplementedError


def min_p_sample(logits, p_base, temperature, rng):
    """Draw one token id with min-p sampling.

    Temperature first, then the min-p filter, then one inverse-CDF draw using
    exactly one call of rng.random(). Returns an int index into logits."""
    raise NotImplementedError
