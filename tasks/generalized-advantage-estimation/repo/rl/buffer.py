"""Rollout storage for on-policy algorithms (one environment, T steps)."""


class RolloutBuffer:
    """Transitions collected by running the policy for T steps.

    For step ``t``: ``rewards[t]`` is r_t, ``values[t]`` the critic's V(s_t) and
    ``dones[t]`` is True when the episode ended right after step t (s_{t+1} is
    terminal and the next stored state starts a new episode). ``last_value`` is
    V(s_T), the critic's value of the state reached after the final step (use 0.0
    if that state is terminal).
    """

    def __init__(self):
        self.rewards = []
        self.values = []
        self.dones = []
        self.last_value = 0.0

    def add(self, reward, value, done):
        """Append one transition."""
        self.rewards.append(float(reward))
        self.values.append(float(value))
        self.dones.append(bool(done))

    def finish(self, last_value):
        """Store the bootstrap value V(s_T) of the state after the final step."""
        self.last_value = float(last_value)

    def __len__(self):
        return len(self.rewards)


def check_rollout(rewards, values, dones):
    """Raise ``ValueError`` unless the three sequences have the same length."""
    if not (len(rewards) == len(values) == len(dones)):
        raise ValueError(
            f"rollout sequences differ in length: rewards {len(rewards)}, values {len(values)}, dones {len(dones)}"
        )


def check_discount(name, x):
    """Raise ``ValueError`` unless ``x`` is a number in [0, 1]."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not (0.0 <= x <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {x!r}")
