"""Softmax policy helpers on plain lists of floats."""

import math


def log_softmax(logits):
    """log softmax(logits) of one list of unnormalised log-probabilities.

    Computed with the log-sum-exp shift, so logits near 1000 do not overflow.
    Raises ValueError for an empty list.
    """
    logits = [float(z) for z in logits]
    if not logits:
        raise ValueError("log_softmax of an empty list")
    m = max(logits)
    lse = m + math.log(math.fsum(math.exp(z - m) for z in logits))
    return [z - lse for z in logits]


def action_log_probs(policy_logits, actions):
    """log pi(a_t | x_t) for every step t.

    policy_logits: list of T lists (one list of logits per step).
    actions: list of T ints, the action taken at each step.
    Returns a list of T floats. Raises ValueError on a length mismatch or an
    action index outside the range of its step's logits.
    """
    if len(policy_logits) != len(actions):
        raise ValueError(f"{len(policy_logits)} steps of logits but {len(actions)} actions")
    out = []
    for t, (logits, a) in enumerate(zip(policy_logits, actions)):
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < len(logits):
            raise ValueError(f"action {a!r} at step {t} is not an index into its logits")
        out.append(log_softmax(logits)[a])
    return out
