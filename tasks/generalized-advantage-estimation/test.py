import random
import unittest

from recode_check import check, outcome

from rl.buffer import RolloutBuffer
from rl.gae import gae_advantages, lambda_returns, normalize_advantages, td_residuals

# Hand rollout: an episode of 3 steps ends after step 2, a new one runs to the cut-off.
REWARDS = [1.0, 0.0, 2.0, 0.5, -1.0]
VALUES = [0.5, 1.0, 1.5, 0.2, 0.4]
DONES = [False, False, True, False, False]
LAST_VALUE = 0.7


def random_buffer(seed, steps, p_done=0.15):
    rng = random.Random(seed)
    buf = RolloutBuffer()
    for _ in range(steps):
        buf.add(round(rng.uniform(-1.0, 2.0), 3), round(rng.uniform(-0.5, 3.0), 3), rng.random() < p_done)
    buf.finish(round(rng.uniform(-0.5, 3.0), 3))
    return buf


class TestTDResiduals(unittest.TestCase):
    def test_masks_and_bootstrap(self):
        deltas = td_residuals(REWARDS, VALUES, DONES, LAST_VALUE, 0.9)
        self.assertEqual(len(deltas), 5)
        check(self, "td_hand", deltas)
        # An episode end at the last step ignores the bootstrap value.
        check(self, "td_terminal_last", td_residuals([1.0, 1.0], [0.3, 0.6], [False, True], 5.0, 0.99))
        check(self, "td_length_outcomes", [outcome(td_residuals, rewards, [0.0], dones, 0.0, 0.9)
                                            for rewards, dones in (([1.0], [False]), ([1.0, 2.0], [False, False]), ([3.0], [True]))])
        check(self, "td_gamma_outcomes", [outcome(td_residuals, [1.0], [0.0], [False], last_value, gamma)
                                           for last_value, gamma in ((2.0, 0.5), (0.0, 1.5), (1.0, 1.0))])

    def test_random_rollout(self):
        buf = random_buffer(21, 64)
        check(self, "td_random", td_residuals(buf.rewards, buf.values, buf.dones, buf.last_value, 0.97))


class TestGAE(unittest.TestCase):
    def test_hand_rollout_and_limits(self):
        check(self, "gae_hand", gae_advantages(REWARDS, VALUES, DONES, LAST_VALUE, 0.9, 0.8))
        # lambda = 0: the advantage is the one-step TD residual.
        lam0 = gae_advantages(REWARDS, VALUES, DONES, LAST_VALUE, 0.9, 0.0)
        deltas = td_residuals(REWARDS, VALUES, DONES, LAST_VALUE, 0.9)
        for a, d in zip(lam0, deltas):
            self.assertAlmostEqual(a, d, places=12)
        # lambda = 1: discounted return (bootstrapped at the cut-off) minus the value.
        check(self, "gae_hand_lam1", gae_advantages(REWARDS, VALUES, DONES, LAST_VALUE, 0.9, 1.0))

    def test_random_rollout_with_episode_ends(self):
        buf = random_buffer(5, 80)
        self.assertTrue(any(buf.dones[:-1]))
        check(self, "gae_random", gae_advantages(buf.rewards, buf.values, buf.dones, buf.last_value, 0.99, 0.95))
        check(self, "gae_random_g09_l07", gae_advantages(buf.rewards, buf.values, buf.dones, buf.last_value, 0.9, 0.7))
        check(self, "gae_lam_outcomes", [outcome(gae_advantages, buf.rewards, buf.values, buf.dones, buf.last_value, 0.99, lam) for lam in (0.5, -0.1, 0.9)])


class TestLambdaReturns(unittest.TestCase):
    def test_targets(self):
        check(self, "returns_hand", lambda_returns(REWARDS, VALUES, DONES, LAST_VALUE, 0.9, 0.8))
        buf = random_buffer(9, 50)
        check(self, "returns_random", lambda_returns(buf.rewards, buf.values, buf.dones, buf.last_value, 0.99, 0.95))
        # gamma = lambda = 1 without episode ends: plain reward-to-go plus the bootstrap value.
        check(self, "returns_mc", lambda_returns([1.0, 2.0, 3.0], [9.0, -4.0, 0.5], [False] * 3, 10.0, 1.0, 1.0))


class TestNormalize(unittest.TestCase):
    def test_standardized(self):
        buf = random_buffer(13, 40)
        adv = gae_advantages(buf.rewards, buf.values, buf.dones, buf.last_value, 0.99, 0.95)
        out = normalize_advantages(adv)
        check(self, "norm_random", out)
        check(self, "norm_small_eps", normalize_advantages([1.0, 2.0, 4.0], eps=0.5))

    def test_degenerate_inputs(self):
        check(self, "norm_single", normalize_advantages([3.5]))
        check(self, "norm_constant", normalize_advantages([2.0, 2.0, 2.0]))
        check(self, "norm_size_outcomes", [outcome(normalize_advantages, advantages) for advantages in ([1.0, -2.0, 0.5], [], [4.0, 4.5])])
