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


def clipped_surrogate(ratios, advantages, clip_eps=0.2):
    """L^CLIP: the batch mean of min(r_t A_t, clip(r_t, 1 - eps, 1 + eps) A_t). An objective to maximise."""
    check_same_length(ratios=ratios, advantages=advantages)
    check_clip_range("clip_eps", clip_eps)
    terms = []
    for r, a in zip(ratios, advantages):
        # Eq. (7): the first term is the unclipped CPI surrogate r_t A_t (Eq. 6); the second clips the
        # ratio to [1 - eps, 1 + eps]. The minimum makes the objective a pessimistic (lower) bound:
        # a change of the ratio is ignored when it would improve the objective, kept when it makes it worse.
        terms.append(min(r * a, clamp(r, 1.0 - clip_eps, 1.0 + clip_eps) * a))
    # The expectation hat-E_t is the empirical mean over the batch.
    return mean(terms)


def value_loss(values, old_values, returns, vf_clip=None):
    """Squared-error value loss, one half of the batch mean, optionally clipped around the old values."""
    check_same_length(values=values, old_values=old_values, returns=returns)
    if vf_clip is None:
        # Eq. (9): L^VF_t = (V_theta(s_t) - V^targ_t)^2; implementations scale it by one half.
        return 0.5 * mean([(v - ret) ** 2 for v, ret in zip(values, returns)])
    if isinstance(vf_clip, bool) or not isinstance(vf_clip, (int, float)) or not vf_clip > 0.0:
        raise ValueError(f"vf_clip must be a positive number or None, got {vf_clip!r}")
    # The paper leaves this out: common implementations (openai/baselines ppo2, cleanrl) also keep
    # the new value prediction within vf_clip of the value stored at collection time, and take the
    # larger (pessimistic) of the clipped and unclipped squared errors, mirroring the policy clip.
    losses = []
    for v, old, ret in zip(values, old_values, returns):
        v_clipped = old + clamp(v - old, -vf_clip, vf_clip)
        losses.append(max((v - ret) ** 2, (v_clipped - ret) ** 2))
    return 0.5 * mean(losses)


def ppo_loss(new_log_probs, old_log_probs, advantages, values, old_values, returns, logits,
             clip_eps=0.2, vf_clip=0.2, vf_coef=0.5, ent_coef=0.01):
    """The loss to minimise, -(L^CLIP - c1 L^VF + c2 S), with its parts, as a dict."""
    check_same_length(new_log_probs=new_log_probs, old_log_probs=old_log_probs, advantages=advantages,
                      values=values, old_values=old_values, returns=returns, logits=logits)
    ratios = probability_ratios(new_log_probs, old_log_probs)
    policy_loss = -clipped_surrogate(ratios, advantages, clip_eps)
    v_loss = value_loss(values, old_values, returns, vf_clip)
    # Eq. (9): the entropy bonus S[pi_theta](s_t), averaged over the batch, from each state's logits.
    entropy = mean([categorical_entropy(z) for z in logits])
    # Eq. (9): maximise L^CLIP - c1 L^VF + c2 S, i.e. minimise its negative.
    loss = policy_loss + vf_coef * v_loss - ent_coef * entropy
    return {
        "loss": loss,
        "policy_loss": policy_loss,
        "value_loss": v_loss,
        "entropy": entropy,
        "clip_fraction": clip_fraction(ratios, clip_eps),
    }
