import math
import random
import unittest

from recode_check import check, outcome

from impala.vtrace import (
    clipped_importance_weights,
    vtrace_from_logits,
    vtrace_pg_advantages,
    vtrace_targets,
)

# Hand trajectory: rho = [1, 2, 0.5] before clipping, a constant discount, bootstrap V(x_3) = 2.
HAND = dict(
    log_rhos=[0.0, math.log(2.0), math.log(0.5)],
    discounts=[0.9, 0.9, 0.9],
    rewards=[1.0, 0.0, 2.0],
    values=[0.5, 1.0, 1.5],
    bootstrap_value=2.0,
)


def r(xs):
    """Values rounded to 12 decimals: math.exp and math.log may differ in the last bit between platforms."""
    return [round(x, 12) for x in xs]


def random_trajectory(rng, steps, p_end=0.15, gamma=0.97):
    """log_rhos in [-2.5, 2.5) (rho from about 0.08 to 12), episode ends as zero discounts."""
    return dict(
        log_rhos=[rng.uniform(-2.5, 2.5) for _ in range(steps)],
        discounts=[0.0 if rng.random() < p_end else gamma for _ in range(steps)],
        rewards=[rng.uniform(-1.0, 2.0) for _ in range(steps)],
        values=[rng.uniform(-0.5, 3.0) for _ in range(steps)],
        bootstrap_value=rng.uniform(-0.5, 3.0),
    )


class TestClippedWeights(unittest.TestCase):
    def test_values(self):
        log_rhos = [0.0, math.log(2.0), -1.0, 1.5, math.log(0.25)]
        check(self, "weights_clip1", r(clipped_importance_weights(log_rhos, 1.0)), rtol=1e-12, atol=1e-12)
        check(self, "weights_clip2.5", r(clipped_importance_weights(log_rhos, 2.5)), rtol=1e-12, atol=1e-12)
        check(self, "weights_noclip", r(clipped_importance_weights(log_rhos, None)), rtol=1e-12, atol=1e-12)

    def test_large_log_ratio_and_errors(self):
        # A log-ratio of 1000 overflows exp(); the clipped weight is the threshold itself.
        check(self, "weights_huge", r(clipped_importance_weights([1000.0, -1000.0, 0.5], 1.0)), rtol=1e-12, atol=1e-12)
        check(self, "weights_threshold_mixed", [outcome(clipped_importance_weights, [0.0], t) for t in (2.0, 0.0, -1.0, 0.5, True, "1", None)],
              rtol=1e-12, atol=1e-12)


class TestVTraceTargets(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = random.Random(2018)
        cls.long = random_trajectory(rng, 60)
        cls.short = random_trajectory(rng, 12, p_end=0.0)

    def test_hand_trajectory(self):
        check(self, "vs_hand", r(vtrace_targets(**HAND)), rtol=1e-12, atol=1e-12)
        # An episode end after step 0 (discount 0) cuts both the bootstrap and the trace.
        cut = dict(HAND, discounts=[0.0, 0.9, 0.9])
        check(self, "vs_hand_cut", r(vtrace_targets(**cut)), rtol=1e-12, atol=1e-12)

    def test_on_policy_is_n_step_return(self):
        # log rho = 0: rho = c = 1, and v_s is the n-step bootstrapped return of the trajectory.
        t = dict(self.short, log_rhos=[0.0] * 12)
        vs = vtrace_targets(**t)
        ret = t["bootstrap_value"]
        for s in reversed(range(12)):
            ret = t["rewards"][s] + t["discounts"][s] * ret
            self.assertAlmostEqual(vs[s], ret, places=9)
        check(self, "vs_on_policy", r(vs), rtol=1e-12, atol=1e-12)

    def test_random_thresholds(self):
        t = self.long
        check(self, "vs_rho1_c1", r(vtrace_targets(**t)), rtol=1e-10, atol=1e-12)
        check(self, "vs_rho2_c0.5", r(vtrace_targets(**t, clip_rho_threshold=2.0, clip_c_threshold=0.5)), rtol=1e-10, atol=1e-12)
        check(self, "vs_rho1.5_c1.5", r(vtrace_targets(**t, clip_rho_threshold=1.5, clip_c_threshold=1.5)), rtol=1e-10, atol=1e-12)
        check(self, "vs_noclip_c1", r(vtrace_targets(**self.short, clip_rho_threshold=None)), rtol=1e-10, atol=1e-12)

    def test_errors(self):
        check(self, "vs_errors", [outcome(vtrace_targets, [0.0, 0.3], [0.9, 0.5], [1.0, 1.0], [0.0, 0.2], 0.0),
                                  outcome(vtrace_targets, [0.0, 0.0], [0.9], [1.0, 1.0], [0.0, 0.0], 0.0),
                                  outcome(vtrace_targets, [0.0], [1.5], [1.0], [0.0], 0.0),
                                  outcome(vtrace_targets, [0.2], [1.0], [-1.0], [0.5], 3.0),
                                  outcome(vtrace_targets, [], [], [], [], 0.0),
                                  outcome(vtrace_targets, **HAND, clip_c_threshold=0.0),
                                  outcome(vtrace_targets, **HAND, clip_c_threshold=0.7)], rtol=1e-10, atol=1e-12)
        check(self, "vs_single_step", r(vtrace_targets([math.log(3.0)], [0.5], [1.0], [2.0], 4.0, clip_rho_threshold=2.0)), rtol=1e-12, atol=1e-12)


class TestPGAdvantages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.traj = random_trajectory(random.Random(77), 40)
        cls.vs = vtrace_targets(**cls.traj)

    def test_hand_trajectory(self):
        vs = vtrace_targets(**HAND)
        check(self, "pg_hand", r(vtrace_pg_advantages(**HAND, vs=vs)), rtol=1e-12, atol=1e-12)
        check(self, "pg_hand_noclip", r(vtrace_pg_advantages(**HAND, vs=vs, clip_pg_rho_threshold=None)), rtol=1e-12, atol=1e-12)

    def test_random_trajectory(self):
        check(self, "pg_random", r(vtrace_pg_advantages(**self.traj, vs=self.vs)), rtol=1e-10, atol=1e-12)
        check(self, "pg_random_clip3", r(vtrace_pg_advantages(**self.traj, vs=self.vs, clip_pg_rho_threshold=3.0)), rtol=1e-10, atol=1e-12)
        check(self, "pg_short_vs", [outcome(vtrace_pg_advantages, **self.traj, vs=self.vs[::-1]),
                                    outcome(vtrace_pg_advantages, **self.traj, vs=self.vs[:-1]),
                                    outcome(vtrace_pg_advantages, **self.traj, vs=[v + 0.25 for v in self.vs])],
              rtol=1e-10, atol=1e-12)


class TestFromLogits(unittest.TestCase):
    def test_softmax_policies(self):
        rng = random.Random(5)
        T, A = 25, 4
        behaviour = [[rng.uniform(-2.0, 2.0) for _ in range(A)] for _ in range(T)]
        target = [[rng.uniform(-3.0, 3.0) for _ in range(A)] for _ in range(T)]
        actions = [rng.randrange(A) for _ in range(T)]
        t = random_trajectory(rng, T, gamma=0.99)
        vs, adv, log_rhos = vtrace_from_logits(behaviour, target, actions, t["discounts"], t["rewards"],
                                               t["values"], t["bootstrap_value"])
        check(self, "logits_log_rhos", r(log_rhos), rtol=1e-10, atol=1e-12)
        check(self, "logits_vs", r(vs), rtol=1e-10, atol=1e-12)
        check(self, "logits_pg", r(adv), rtol=1e-10, atol=1e-12)
        vs2, adv2, _ = vtrace_from_logits(behaviour, target, actions, t["discounts"], t["rewards"], t["values"],
                                          t["bootstrap_value"], clip_rho_threshold=2.0, clip_c_threshold=0.8,
                                          clip_pg_rho_threshold=None)
        check(self, "logits_vs_custom", r(vs2), rtol=1e-10, atol=1e-12)
        check(self, "logits_pg_custom", r(adv2), rtol=1e-10, atol=1e-12)

    def test_large_logits_and_errors(self):
        # Logits near 1000 must go through the log-softmax, never exp() of a raw logit.
        behaviour = [[1000.0, 999.0, 998.0], [0.0, 0.0, 0.0]]
        target = [[998.0, 1000.0, 999.5], [2.0, -1.0, 0.0]]
        vs, adv, log_rhos = vtrace_from_logits(behaviour, target, [0, 2], [0.9, 0.9], [1.0, -1.0], [0.2, 0.4], 1.0)
        check(self, "large_log_rhos", r(log_rhos), rtol=1e-10, atol=1e-12)
        check(self, "large_vs", r(vs), rtol=1e-10, atol=1e-12)
        check(self, "large_pg", r(adv), rtol=1e-10, atol=1e-12)
        check(self, "large_actions_mixed", [outcome(vtrace_from_logits, behaviour, target, [1, 1], [0.9, 0.9], [1.0, -1.0], [0.2, 0.4], 1.0),
                                            outcome(vtrace_from_logits, behaviour, target, [0, 3], [0.9, 0.9], [1.0, -1.0], [0.2, 0.4], 1.0),
                                            outcome(vtrace_from_logits, behaviour, target, [0], [0.9, 0.9], [1.0, -1.0], [0.2, 0.4], 1.0),
                                            outcome(vtrace_from_logits, behaviour, target, [2, 0], [0.9, 0.9], [1.0, -1.0], [0.2, 0.4], 1.0)],
              rtol=1e-10, atol=1e-12)
