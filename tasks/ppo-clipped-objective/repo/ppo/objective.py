"""The clipped surrogate objective of PPO (Schulman et al., "Proximal Policy Optimization
Algorithms", 2017), with the value loss and entropy bonus of the combined objective."""

import math

from ppo.distributions import categorical_entropy
from ppo.numerics import check_clip_range, check_same_length, clamp, mean


def probability_ratios(new_log_probs, old_log_probs):
    """r_t(theta) = pi_theta(a_t|s_t) / pi_theta_old(a_t|s_t) = exp(new - old), one per sample."""
    check_same_length(new_log_probs=new_log_probs, old_log_probs=old_log_probs)
    return [math.exp(new - old) for new, old in zip(new_log_probs, old_log_probs)]


def clip_fraction(ratios, clip_eps):
    """Share of samples whose ratio lies outside [1 - clip_eps, 1 + clip_eps] (|r - 1| > clip_eps)."""
    check_clip_range("clip_eps", clip_eps)
    if not ratios:
        raise ValueError("empty batch")
    return mean([1.0 if abs(r - 1.0) > clip_eps else 0.0 for r in ratios])
