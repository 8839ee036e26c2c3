import random
import unittest

from recode_check import check, outcome

from lionopt.lion import lion_direction, lion_step, run_lion, update_momentum
from lionopt.objectives import Quadratic, Rosenbrock
from lionopt.params import LionState


def random_grads(seed, steps, n, scale=2.0):
    rng = random.Random(seed)
    return [[round(rng.uniform(-scale, scale), 4) for _ in range(n)] for _ in range(steps)]


class TestLionDirection(unittest.TestCase):
    def test_sign_of_interpolation(self):
        # beta1 = 0.9: 0.9 m + 0.1 g; the momentum wins in the first two coordinates.
        m = [1.0, -0.5, 0.2, 0.0, -3.0]
        g = [-5.0, 2.0, -3.0, 0.0, 50.0]
        out = lion_direction(m, g, 0.9)
        self.assertEqual(m, [1.0, -0.5, 0.2, 0.0, -3.0])
        check(self, "direction_hand", out)
        check(self, "direction_beta1_0.5", lion_direction(m, g, 0.5))
        check(self, "direction_beta1_0", lion_direction(m, g, 0.0))

    def test_zero_and_errors(self):
        # A coordinate whose interpolation is exactly zero gets direction 0, not +1 or -1.
        check(self, "direction_zeros", lion_direction([0.0, 0.0, 0.0], [0.0, -0.0, 1e-300], 0.9))
        check(
            self,
            "direction_lengths",
            [
                outcome(lion_direction, m, g, 0.9)
                for m, g in (([0.5, -1.0], [2.0, 3.0]), ([0.0], [1.0, 2.0]), ([-0.3], [4.0]))
            ],
        )
        check(
            self,
            "direction_beta1_range",
            [outcome(lion_direction, *args) for args in (([2.0], [-1.0], 0.3), ([0.0], [1.0], 1.0), ([2.0], [-1.0], 0.99))],
        )


class TestUpdateMomentum(unittest.TestCase):
    def test_values(self):
        m = [1.0, -0.5, 0.2]
        out = update_momentum(m, [-5.0, 2.0, 0.0], 0.99)
        self.assertEqual(m, [1.0, -0.5, 0.2])
        check(self, "momentum_hand", out)
        check(self, "momentum_beta2_0", update_momentum(m, [3.0, 4.0, 5.0], 0.0))
        check(
            self,
            "momentum_beta2_range",
            [
                outcome(update_momentum, *args)
                for args in (([1.0], [3.0], 0.5), ([0.0], [1.0], -0.1), ([2.0, -1.0], [0.0, 4.0], 0.25))
            ],
            rtol=1e-12,
        )


class TestLionStep(unittest.TestCase):
    def test_first_step(self):
        # From zero momentum the first direction is the sign of the gradient: every coordinate moves by lr.
        state = LionState(4)
        params = [1.0, -0.5, 2.0, 0.25]
        out = lion_step(params, [0.3, -4.0, 1e-6, 0.0], state, lr=0.01)
        self.assertEqual(state.step, 1)
        self.assertEqual(params, [1.0, -0.5, 2.0, 0.25])
        check(self, "step_first", out)
        check(self, "step_first_m", state.m)

    def test_several_steps_with_decay(self):
        state = LionState(3)
        params = [0.5, -1.0, 3.0]
        trace = []
        for g in random_grads(17, 10, 3):
            params = lion_step(params, g, state, lr=0.05, beta1=0.8, beta2=0.95, weight_decay=0.3)
            trace.append(params)
        self.assertEqual(state.step, 10)
        check(self, "step_trace", trace)
        check(self, "step_trace_m", state.m)

    def test_pure_decay_and_defaults(self):
        # Zero gradient and zero momentum: only the decoupled decay acts, scaled by lr.
        state = LionState(2)
        check(self, "step_pure_decay", lion_step([2.0, -4.0], [0.0, 0.0], state, lr=0.1, weight_decay=0.5))
        # Default hyperparameters: lr 1e-4, beta1 0.9, beta2 0.99, no decay.
        state = LionState(2)
        params = [1.0, 1.0]
        for g in random_grads(3, 6, 2):
            params = lion_step(params, g, state)
        check(self, "step_defaults", params, rtol=1e-12)
        check(self, "step_defaults_m", state.m)
        check(
            self,
            "step_lengths",
            [
                outcome(lion_step, p, g, LionState(n))
                for p, g, n in (([1.0, -2.0], [0.5, 0.5], 2), ([0.0, 0.0], [1.0], 2), ([3.0], [-1.0], 1))
            ],
            rtol=1e-12,
        )
        check(
            self,
            "step_weight_decay_range",
            [
                outcome(lion_step, p, [1.0], LionState(1), weight_decay=wd)
                for p, wd in (([2.0], 0.5), ([0.0], -1.0), ([-1.0], 0.25))
            ],
            rtol=1e-12,
        )
        check(
            self,
            "step_lr_range",
            [outcome(lion_step, p, [1.0], LionState(1), lr=lr) for p, lr in (([2.0], 0.1), ([0.0], -0.1), ([-1.0], 0.0))],
            rtol=1e-12,
        )


class TestRunLion(unittest.TestCase):
    def test_quadratic(self):
        f = Quadratic([1.0, 10.0, 0.1], [3.0, -1.0, 2.0])
        x0 = [0.0, 0.0, 0.0]
        x, losses = run_lion(f, x0, 120, lr=0.05)
        self.assertEqual(x0, [0.0, 0.0, 0.0])
        self.assertEqual(len(losses), 121)
        check(self, "run_quadratic_x", x)
        check(self, "run_quadratic_losses", losses)
        check(self, "run_zero_steps", run_lion(f, [1.0, 2.0, 3.0], 0))
        # Default hyperparameters (lr 1e-4, betas 0.9 and 0.99, no decay).
        check(self, "run_defaults", run_lion(f, [1.0, 2.0, 3.0], 5), rtol=1e-12)

    def test_rosenbrock_with_decay(self):
        x, losses = run_lion(Rosenbrock(), [-1.2, 1.0], 300, lr=0.003, beta1=0.9, beta2=0.99, weight_decay=0.1)
        check(self, "run_rosen_x", x)
        check(self, "run_rosen_losses", losses[::20])
        check(self, "run_steps_range", [outcome(run_lion, Rosenbrock(), [0.0, 0.0], n) for n in (2, -1, 4)], rtol=1e-12)
