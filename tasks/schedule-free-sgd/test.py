import random
import unittest

from recode_check import check, outcome

from sfree.objectives import Quadratic, make_regression
from sfree.schedule_free import ScheduleFreeSGD, run_schedule_free, warmup_lr


class TestWarmupLR(unittest.TestCase):
    def test_linear_ramp(self):
        check(self, "warmup_ramp", [warmup_lr(0.5, t, 4) for t in range(1, 8)])
        check(self, "warmup_none", [warmup_lr(0.3, t, 0) for t in (1, 2, 50)])
        check(self, "warmup_one_step", [warmup_lr(2.0, t, 1) for t in (1, 2)])

    def test_errors(self):
        check(self, "warmup_large_t", warmup_lr(1.5, 10**6, 1000))
        check(self, "warmup_args_outcomes", [outcome(warmup_lr, *args) for args in ((0.5, 2, 4), (0.5, 0, 4), (0.5, -1, 4), (1.0, 3, 0), (0.5, 1.5, 4), (-0.1, 1, 4),
                                                                           (0.2, 7, 5), (0.5, 1, -1))])


class TestScheduleFreeSGD(unittest.TestCase):
    def test_first_steps_by_hand(self):
        opt = ScheduleFreeSGD([1.0, -2.0, 0.5], lr=0.5, beta=0.9, warmup_steps=2)
        self.assertEqual((opt.t, opt.x, opt.z, opt.y), (0, [1.0, -2.0, 0.5], [1.0, -2.0, 0.5], [1.0, -2.0, 0.5]))
        cs = []
        states = []
        for g in ([0.4, -1.0, 2.0], [1.0, 0.5, -0.5], [-0.2, 0.3, 0.0]):
            cs.append(opt.step(g))
            states.append((list(opt.x), list(opt.z), list(opt.y)))
        self.assertEqual(opt.t, 3)
        check(self, "sgd_hand_c", cs)
        check(self, "sgd_hand_states", states)

    def test_averaging_weights(self):
        # Warmup over 4 steps: gamma_t = 0.25, 0.5, 0.75, 1, 1, ...; the gradient does not enter c.
        opt = ScheduleFreeSGD([0.0, 0.0], lr=1.0, beta=0.5, warmup_steps=4)
        cs = [opt.step([0.0, 0.0]) for _ in range(8)]
        self.assertEqual(cs[0], 1.0)
        check(self, "weights_warmup4", cs)
        # Without warmup the average is uniform over z_2, ..., z_{t+1}: c_{t+1} = 1/t.
        opt = ScheduleFreeSGD([3.0], lr=0.1, beta=0.9)
        zs = []
        cs = []
        for t in range(6):
            cs.append(opt.step([float(t) - 2.0]))
            zs.append(opt.z[0])
        self.assertAlmostEqual(opt.x[0], sum(zs) / len(zs), places=12)
        check(self, "weights_uniform", cs)
        check(self, "uniform_x", opt.x)

    def test_weight_decay_and_extremes(self):
        # Weight decay enters through the gradient point y (here y_1 = x_1 = z_1 = x0).
        # After the first step x = z = y again (c_2 = 1), so only later steps tell y from x and z.
        opt = ScheduleFreeSGD([2.0, -4.0], lr=0.1, beta=0.9, weight_decay=0.5)
        for g in ([0.0, 0.0], [1.0, 1.0], [-2.0, 0.5], [0.0, 0.0]):
            opt.step(g)
        check(self, "decay_steps", (opt.x, opt.z, opt.y))
        # beta = 0 evaluates gradients at z (Polyak averaging), beta = 1 at x (primal averaging).
        for beta in (0.0, 1.0):
            opt = ScheduleFreeSGD([1.0, 1.0], lr=0.2, beta=beta, warmup_steps=3)
            for g in ([1.0, -1.0], [0.5, 2.0], [-1.0, 0.25], [0.0, 1.0]):
                opt.step(g)
            check(self, f"extreme_beta_{beta}", (opt.x, opt.z, opt.y))

    def test_errors(self):
        check(self, "zero_lr", ScheduleFreeSGD([1.0], lr=0.0).step([5.0]))

        def two_steps(x0, **kwargs):
            opt = ScheduleFreeSGD(x0, **kwargs)
            opt.step([0.5] * len(x0))
            opt.step([-0.25] * len(x0))
            return (opt.x, opt.z, opt.y)

        check(self, "init_outcomes", [
            outcome(two_steps, [1.0], beta=1.0),
            outcome(two_steps, [1.0], beta=1.5),
            outcome(two_steps, [1.0], beta=-0.1),
            outcome(two_steps, [1.0], lr=0.3, weight_decay=0.1),
            outcome(two_steps, [1.0], lr=-1.0),
            outcome(two_steps, [1.0], weight_decay=-0.5),
            outcome(two_steps, [2.0, -1.0], lr=0.5, warmup_steps=3),
            outcome(two_steps, [], lr=1.0),
            outcome(two_steps, [1.0], warmup_steps=-1),
            outcome(two_steps, [1.0], beta=0.0),
        ])
        # Defaults: lr 1, beta 0.9, no warmup, no weight decay.
        opt = ScheduleFreeSGD([1.0, -1.0])
        for g in ([0.5, 0.25], [-0.5, 1.0], [0.125, -0.25]):
            opt.step(g)
        check(self, "defaults_state", (opt.x, opt.z, opt.y))
        two = ScheduleFreeSGD([1.0, 2.0])
        check(self, "step_length_outcomes", [outcome(two.step, grad) for grad in ([0.5, -1.0], [1.0], [0.25, 0.25])])


class TestRunScheduleFree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.quad = Quadratic([1.0, 10.0, 0.1], [3.0, -1.0, 2.0])
        cls.x0 = [0.0, 0.0, 0.0]
        cls.det = run_schedule_free(cls.quad, cls.x0, 60, lr=0.15, beta=0.9, warmup_steps=5)
        cls.problem = make_regression(random.Random(11), 30, 4)
        cls.sto = run_schedule_free(
            cls.problem, [0.0] * 4, 80, lr=0.3, beta=0.9, warmup_steps=10, weight_decay=0.01, rng=random.Random(5)
        )

    def test_deterministic_quadratic(self):
        x, losses = self.det
        self.assertEqual(self.x0, [0.0, 0.0, 0.0])
        self.assertEqual(len(losses), 61)
        self.assertLess(losses[-1], losses[0])
        check(self, "run_quad_x", x)
        check(self, "run_quad_losses", losses)
        check(self, "run_zero_steps", run_schedule_free(self.quad, [1.0, 2.0, 3.0], 0))
        check(self, "run_defaults", run_schedule_free(self.quad, [1.0, 2.0, 3.0], 4))

    def test_stochastic_regression(self):
        x, losses = self.sto
        self.assertEqual(len(losses), 81)
        check(self, "run_sto_x", x)
        check(self, "run_sto_losses", losses[::8])
        check(self, "run_steps_outcomes", [outcome(run_schedule_free, self.quad, self.x0, steps) for steps in (2, -1, 3)])
