"""Generalized advantage estimation (Schulman et al., 2016)."""

from rl.buffer import check_discount, check_rollout
from rl.stats import mean_std


def td_residuals(rewards, values, dones, last_value, gamma):
    """One-step TD residuals delta_t of a rollout.

    Args:
        rewards, values: lists of T floats (r_t and V(s_t)).
        dones: list of T bools; dones[t] means the episode ended after step t.
        last_value: V(s_T), the value of the state after the final step.
        gamma: discount factor in [0, 1].
    Returns:
        list of T floats.
    """
    raise NotImplementedError


def gae_advantages(rewards, values, dones, last_value, gamma, lam):
    """GAE(gamma, lambda) advantage estimates, list of T floats."""
    raise NotImplementedError


def lambda_returns(rewards, values, dones, last_value, gamma, lam):
    """Value-function targets (lambda-returns): advantages plus values, list of T floats."""
    raise NotImplementedError


def normalize_advantages(advantages, eps=1e-8):
    """Advantages shifted to mean 0 and scaled by (population std + eps). List of floats."""
    raise NotImplementedError
