"""Generalized advantage estimation (Schulman et al., 2016)."""

from rl.buffer import check_discount, check_rollout
from rl.stats import mean_std


def td_residuals(rewards, values, dones, last_value, gamma):
    """One-step TD residuals delta_t of a rollout."""
    check_rollout(rewards, values, dones)
    check_discount("gamma", gamma)
    T = len(rewards)
    deltas = []
    for t in range(T):
        # V(s_{t+1}): the next stored value, or the bootstrap value after the last step.
        next_value = values[t + 1] if t + 1 < T else last_value
        # A terminal s_{t+1} has value 0: the episode-end mask cuts the bootstrap.
        not_done = 0.0 if dones[t] else 1.0
        # Sec. 3: delta_t^V = r_t + gamma V(s_{t+1}) - V(s_t)
        deltas.append(rewards[t] + gamma * next_value * not_done - values[t])
    return deltas


def gae_advantages(rewards, values, dones, last_value, gamma, lam):
    """GAE(gamma, lambda) advantage estimates."""
    check_discount("lam", lam)
    deltas = td_residuals(rewards, values, dones, last_value, gamma)
    T = len(deltas)
    advantages = [0.0] * T
    running = 0.0
    # Sec. 3, GAE(gamma, lambda): A_t = sum_l (gamma lambda)^l delta_{t+l}, computed backwards as
    # A_t = delta_t + gamma lambda A_{t+1}, with the sum cut at episode ends.
    for t in reversed(range(T)):
        not_done = 0.0 if dones[t] else 1.0
        running = deltas[t] + gamma * lam * not_done * running
        advantages[t] = running
    return advantages


def lambda_returns(rewards, values, dones, last_value, gamma, lam):
    """Value-function targets: V_t^target = A_t^GAE + V(s_t) (the TD(lambda) return)."""
    advantages = gae_advantages(rewards, values, dones, last_value, gamma, lam)
    # Value targets: the lambda-return hat{V}_t = A_t + V(s_t) (the discounted return when lambda = 1).
    return [a + v for a, v in zip(advantages, values)]


def normalize_advantages(advantages, eps=1e-8):
    """Advantages shifted to mean 0 and scaled by (population std + eps)."""
    if len(advantages) == 0:
        raise ValueError("cannot normalize an empty list of advantages")
    # Batch standardisation used with the policy gradient (population std, eps outside the sqrt).
    mu, sd = mean_std(advantages)
    return [(a - mu) / (sd + eps) for a in advantages]
