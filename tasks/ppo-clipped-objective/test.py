import math
import random
import unittest

from recode_check import check, outcome

from ppo.distributions import log_prob
from ppo.objective import clip_fraction, clipped_surrogate, ppo_loss, probability_ratios, value_loss

BATCH = {}


def r(x):
    """Rounded to 12 decimals: math.exp and math.log may differ in the last bit between platforms."""
    if isinstance(x, dict):
        return {k: r(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [r(v) for v in x]
    return round(x, 12)


def setUpModule():
    """One minibatch of 48 samples from a 4-action softmax policy before and after an update."""
    rng = random.Random(2017)

    def u(lo, hi):
        return round(rng.uniform(lo, hi), 6)

    n, a = 48, 4
    old_logits = [[u(-2.0, 2.0) for _ in range(a)] for _ in range(n)]
    new_logits = [[round(z + u(-0.6, 0.6), 6) for z in row] for row in old_logits]
    actions = [rng.randrange(a) for _ in range(n)]
    old_values = [u(-1.0, 2.0) for _ in range(n)]
    BATCH.update(
        new_log_probs=[log_prob(z, act) for z, act in zip(new_logits, actions)],
        old_log_probs=[log_prob(z, act) for z, act in zip(old_logits, actions)],
        advantages=[u(-1.5, 1.5) for _ in range(n)],
        old_values=old_values,
        values=[round(v + u(-0.5, 0.5), 6) for v in old_values],
        returns=[round(v + u(-1.5, 1.5), 6) for v in old_values],
        logits=new_logits,
    )


class TestRatios(unittest.TestCase):
    def test_ratios(self):
        check(self, "ratios_hand", r(probability_ratios([math.log(0.5), -1.0, -2.0], [math.log(0.25), -1.0, -1.5])), rtol=1e-12)
        check(self, "ratios_length_outcomes", [outcome(probability_ratios, [0.0, 1.0], old) for old in ([0.5, -0.25], [0.0], [1.0, 1.0])], rtol=1e-12)

    def test_clip_fraction(self):
        # |r - 1| > eps counts as clipped; 1.2 sits on the boundary (1.2 - 1 is just below 0.2 in floats).
        check(self, "clipfrac_hand", clip_fraction([1.0, 1.3, 0.7, 1.2, 0.79], 0.2), rtol=1e-12)
        # Exactly on the boundary (|1.5 - 1| = 0.5 = eps) is not clipped.
        check(self, "clipfrac_boundary", clip_fraction([1.5, 0.5, 1.75, 1.0], 0.5), rtol=1e-12)
        check(self, "clipfrac_outcomes", [outcome(clip_fraction, [1.0, 1.4], 0.3), outcome(clip_fraction, [1.0], 0.0), outcome(clip_fraction, [0.6, 1.1, 1.0], 0.25),
                                           outcome(clip_fraction, [], 0.2)], rtol=1e-12)


class TestClippedSurrogate(unittest.TestCase):
    def test_four_regions(self):
        eps = 0.2
        # A > 0: the gain is capped once r exceeds 1 + eps; below 1 - eps the unclipped term is smaller.
        check(self, "clip_pos_high", clipped_surrogate([1.5], [2.0], eps), rtol=1e-12)
        check(self, "clip_pos_low", clipped_surrogate([0.5], [2.0], eps), rtol=1e-12)
        # A < 0: the clipped term binds below 1 - eps; above 1 + eps the unclipped (worse) term counts.
        check(self, "clip_neg_low", clipped_surrogate([0.5], [-1.0], eps), rtol=1e-12)
        check(self, "clip_neg_high", clipped_surrogate([1.5], [-1.0], eps), rtol=1e-12)
        check(self, "clip_inside", clipped_surrogate([0.9, 1.1, 1.0], [1.0, -3.0, 0.5], eps), rtol=1e-12)
        check(self, "clip_mixed_eps0.1", clipped_surrogate([0.5, 1.5, 1.05, 0.8], [1.0, 1.0, -2.0, -1.0], 0.1), rtol=1e-12)

    def test_random_batch(self):
        ratios = probability_ratios(BATCH["new_log_probs"], BATCH["old_log_probs"])
        self.assertTrue(any(abs(x - 1.0) > 0.2 for x in ratios))
        check(self, "surrogate_random", r(clipped_surrogate(ratios, BATCH["advantages"])), rtol=1e-10, atol=1e-12)
        check(self, "surrogate_random_eps0.1", r(clipped_surrogate(ratios, BATCH["advantages"], 0.1)), rtol=1e-10, atol=1e-12)

    def test_errors(self):
        check(self, "surrogate_eps_default", clipped_surrogate([1.3, 0.6], [1.0, -1.0]), rtol=1e-12)
        check(self, "surrogate_eps_outcomes", [outcome(clipped_surrogate, [1.5], [1.0], eps) for eps in (0.3, 0.0, -0.2, 0.6, 1.0, True, 0.05)], rtol=1e-12)
        check(self, "surrogate_lengths_outcomes", [outcome(clipped_surrogate, [1.0, 2.0], [-1.0, 0.5]), outcome(clipped_surrogate, [1.0, 2.0], [1.0]),
                                                   outcome(clipped_surrogate, [0.7], [2.0]), outcome(clipped_surrogate, [], [])], rtol=1e-12)


class TestValueLoss(unittest.TestCase):
    def test_unclipped(self):
        check(self, "vloss_plain", value_loss([1.0, 2.0, 0.5], [0.0, 0.0, 0.0], [0.0, 3.0, 0.5]), rtol=1e-12)

    def test_clipped_hand(self):
        # Sample 1: the new value moved 1.0 away from the old one towards the return; clipped to 0.2 it
        # stays far from the return, so the clipped error is the larger one and counts.
        check(self, "vloss_clip_binds", value_loss([1.0], [0.0], [1.0], vf_clip=0.2), rtol=1e-12)
        # Sample 2: the new value overshoots the return; clipping moves it closer, so the unclipped counts.
        check(self, "vloss_clip_overshoot", value_loss([3.0], [0.0], [1.0], vf_clip=0.2), rtol=1e-12)
        check(self, "vloss_clip_mixed", value_loss([1.0, 3.0, 0.1, -0.5], [0.0, 0.0, 0.0, 0.2], [1.0, 1.0, 2.0, -2.0], vf_clip=0.5), rtol=1e-12)
        check(self, "vloss_outcomes", [outcome(value_loss, [1.0], [0.0], [2.0], vf_clip=0.4), outcome(value_loss, [1.0], [0.0], [1.0], vf_clip=0.0),
                                        outcome(value_loss, [1.0, 2.0], [0.0, 0.5], [1.0, 0.0]), outcome(value_loss, [1.0, 2.0], [0.0], [1.0]),
                                        outcome(value_loss, [0.5], [1.0], [-1.0], vf_clip=2.0)], rtol=1e-12)

    def test_random_batch(self):
        b = BATCH
        check(self, "vloss_random_plain", value_loss(b["values"], b["old_values"], b["returns"]), rtol=1e-10)
        check(self, "vloss_random_clip0.2", value_loss(b["values"], b["old_values"], b["returns"], vf_clip=0.2), rtol=1e-10)
        check(self, "vloss_random_clip1", value_loss(b["values"], b["old_values"], b["returns"], vf_clip=1.0), rtol=1e-10)


class TestPPOLoss(unittest.TestCase):
    def test_defaults(self):
        out = ppo_loss(**BATCH)
        self.assertEqual(sorted(out), ["clip_fraction", "entropy", "loss", "policy_loss", "value_loss"])
        check(self, "ppo_default", r(out), rtol=1e-10, atol=1e-12)

    def test_coefficients(self):
        out = ppo_loss(**BATCH, clip_eps=0.1, vf_clip=None, vf_coef=1.0, ent_coef=0.05)
        check(self, "ppo_custom", r(out), rtol=1e-10, atol=1e-12)
        out = ppo_loss(**BATCH, clip_eps=0.3, vf_clip=0.5, vf_coef=0.25, ent_coef=0.0)
        check(self, "ppo_custom2", r(out), rtol=1e-10, atol=1e-12)

    def test_entropy_and_errors(self):
        # One state with a uniform 3-action policy (entropy log 3) and one near-deterministic one.
        out = ppo_loss([0.0, -1e-9], [0.0, -1e-9], [1.0, -1.0], [0.0, 1.0], [0.0, 1.0], [0.5, 1.5],
                       [[0.0, 0.0, 0.0], [1000.0, 0.0, 990.0]])
        check(self, "ppo_entropy_edge", r(out), rtol=1e-10, atol=1e-12)
        short = {name: values[:-1] for name, values in BATCH.items()}
        check(self, "ppo_outcomes", [outcome(ppo_loss, **short), outcome(ppo_loss, **dict(BATCH, logits=BATCH["logits"][:-1])),
                                     outcome(ppo_loss, **BATCH, clip_eps=0.4), outcome(ppo_loss, **BATCH, clip_eps=1.5)], rtol=1e-10, atol=1e-12)
