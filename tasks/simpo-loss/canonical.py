"""SimPO: Simple Preference Optimization with a Reference-Free Reward (Meng,
Xia and Chen, NeurIPS 2024)."""

import math

from prefopt.batch import IGNORE_INDEX, check_finite, check_positive, check_same_length
from prefopt.logmath import log_softmax, mean


def log_sigmoid(x):
    """log(sigmoid(x)) for a float, without overflow or log(0)."""
    # log sigma(x) = -log(1 + e^{-x}); the paper leaves the numerics out. Use
    # the branch whose exponential is at most 1: for x < 0, rewrite as
    # x - log(1 + e^{x}).
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def sequence_log_prob(logits, labels, average=True, ignore_index=IGNORE_INDEX):
    """Log-likelihood of the labelled tokens, averaged over them (or summed)."""
    check_same_length("logits", logits, "labels", labels)
    # Causal language model: the logits at position t predict the token at
    # t + 1, so labels are shifted left by one against the logits (the last
    # row of logits predicts nothing, the first label has no predictor).
    total = []
    for t in range(1, len(labels)):
        y = labels[t]
        if y == ignore_index:
            continue  # prompt and padding positions are not part of the response y
        row = logits[t - 1]
        if isinstance(y, bool) or not isinstance(y, int) or not 0 <= y < len(row):
            raise ValueError(f"label {y!r} at position {t} is not a token id")
        # log pi_theta(y_i | x, y_<i)
        total.append(log_softmax(row)[y])
    if not total:
        raise ValueError("no scored token: every shifted label is ignore_index")
    # Eq. (3): SimPO scores a response by its AVERAGE log-likelihood,
    # (1/|y|) log pi_theta(y|x) = (1/|y|) sum_i log pi_theta(y_i | x, y_<i).
    return mean(total) if average else math.fsum(total)


def simpo_loss(chosen_logps, rejected_logps, beta=2.0, gamma=0.5):
    """Per-pair SimPO losses and the rewards of the chosen and rejected responses."""
    check_same_length("chosen_logps", chosen_logps, "rejected_logps", rejected_logps)
    if len(chosen_logps) == 0:
        raise ValueError("empty batch")
    check_positive("beta", beta)
    check_finite("gamma", gamma)
    losses, chosen_rewards, rejected_rewards = [], [], []
    for lw, ll in zip(chosen_logps, rejected_logps):
        # Eq. (4): r_SimPO(x, y) = beta / |y| * log pi_theta(y|x); the inputs are
        # already length-normalised, so the reward is beta times them.
        rw, rl = beta * lw, beta * ll
        # Eq. (5)-(6): Bradley-Terry with a target reward margin gamma,
        # L = -log sigma(r_w - r_l - gamma); gamma is subtracted after the
        # scaling by beta, it is not divided by it.
        losses.append(-log_sigmoid(rw - rl - gamma))
        chosen_rewards.append(rw)
        rejected_rewards.append(rl)
    return losses, chosen_rewards, rejected_rewards


def simpo_batch_loss(batch, beta=2.0, gamma=0.5):
    """Mean SimPO loss of a batch of tokenised pairs, with reward statistics."""
    # An empty batch reaches simpo_loss, which rejects it.
    # Length-normalised log-likelihood of each response (Eq. 3), no reference model.
    chosen = [sequence_log_prob(p["chosen_logits"], p["chosen_labels"]) for p in batch]
    rejected = [sequence_log_prob(p["rejected_logits"], p["rejected_labels"]) for p in batch]
    losses, rw, rl = simpo_loss(chosen, rejected, beta, gamma)
    # Eq. (6) is an expectation over the preference data: the batch mean.
    return {
        "loss": mean(losses),
        "chosen_reward": mean(rw),
        "rejected_reward": mean(rl),
        # share of pairs whose chosen reward is strictly higher
        "accuracy": mean([1.0 if a > b else 0.0 for a, b in zip(rw, rl)]),
        "margin": mean([a - b for a, b in zip(rw, rl)]),
    }
