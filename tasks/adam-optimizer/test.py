import random
import unittest

from recode_check import check, outcome

from optim.adam import adam_step, adamw_step, run_adam, update_moments
from optim.objectives import Quadratic, Rosenbrock
from optim.params import AdamState


def random_grads(seed, steps, n):
    rng = random.Random(seed)
    return [[round(rng.uniform(-2.0, 2.0), 4) for _ in range(n)] for _ in range(steps)]


class TestUpdateMoments(unittest.TestCase):
    def test_moving_averages(self):
        m, v = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
        grad = [1.0, -2.0, 0.5]
        m1, v1 = update_moments(m, v, grad, 0.9, 0.999)
        self.assertEqual(m, [0.0, 0.0, 0.0])  # inputs untouched
        check(self, "moments_first", (m1, v1))
        m2, v2 = update_moments(m1, v1, [-1.0, 3.0, 0.0], 0.8, 0.99)
        check(self, "moments_second", (m2, v2))

    def test_invalid(self):
        # beta1 = 0 is allowed: the first moment is then the gradient itself
        check(self, "moments_beta1_zero", update_moments([0.5, 0.5], [0.25, 0.0], [2.0, -1.0], 0.0, 0.5))
        check(self, "moments_outcomes", [outcome(update_moments, [0.5], [0.1], [1.0], 0.9, 0.999),
                                         outcome(update_moments, [0.0], [0.0, 0.0], [1.0], 0.9, 0.999),
                                         outcome(update_moments, [0.0, 1.0], [0.0, 2.0], [1.0, -1.0], 0.5, 0.75),
                                         outcome(update_moments, [0.0], [0.0], [1.0], 1.0, 0.999),
                                         outcome(update_moments, [0.25], [0.5], [-2.0], 0.0, 0.0)])


class TestAdamStep(unittest.TestCase):
    def test_first_step_bias_corrected(self):
        state = AdamState(3)
        params = [1.0, -0.5, 2.0]
        out = adam_step(params, [0.3, -4.0, 1e-3], state, lr=0.01)
        self.assertEqual(state.step, 1)
        self.assertEqual(params, [1.0, -0.5, 2.0])
        # With bias correction the first step has size close to lr in every coordinate.
        for new, old in zip(out, params):
            self.assertAlmostEqual(abs(new - old), 0.01, delta=1e-4)
        check(self, "adam_first", out)
        check(self, "adam_first_state", (state.m, state.v))

    def test_several_steps_random_gradients(self):
        state = AdamState(4)
        params = [0.5, -1.0, 0.0, 3.0]
        trace = []
        for g in random_grads(17, 12, 4):
            params = adam_step(params, g, state, lr=0.05, beta1=0.8, beta2=0.99, eps=1e-6)
            trace.append(params)
        self.assertEqual(state.step, 12)
        check(self, "adam_trace", trace)
        check(self, "adam_trace_state", (state.m, state.v))
        check(self, "adam_length_outcomes", [outcome(adam_step, params, grad, AdamState(2))
                                              for params, grad in (([0.5, -1.0], [1.0, 0.25]), ([0.0, 0.0], [1.0]), ([1.0, 2.0], [-0.5, 0.0]))])


class TestAdamWStep(unittest.TestCase):
    def test_decoupled_decay(self):
        # Zero gradient: the update is the pure decay of the old weights.
        state = AdamState(2)
        out = adamw_step([2.0, -4.0], [0.0, 0.0], state, lr=0.1, weight_decay=0.5)
        check(self, "adamw_zero_grad", out)
        state = AdamState(3)
        params = [1.5, -0.2, 0.7]
        trace = []
        for g in random_grads(4, 6, 3):
            params = adamw_step(params, g, state, lr=0.02, weight_decay=0.1)
            trace.append(params)
        check(self, "adamw_trace", trace)
        check(self, "adamw_state", (state.m, state.v))

    def test_no_decay_matches_adam(self):
        s1, s2 = AdamState(2), AdamState(2)
        p1 = p2 = [0.3, -0.7]
        for g in random_grads(8, 5, 2):
            p1 = adam_step(p1, g, s1, lr=0.01)
            p2 = adamw_step(p2, g, s2, lr=0.01, weight_decay=0.0)
        for a, b in zip(p1, p2):
            self.assertAlmostEqual(a, b, places=12)
        check(self, "adamw_no_decay", p2, rtol=1e-12)
        check(self, "adamw_decay_outcomes", [outcome(adamw_step, params, [1.0], AdamState(1), weight_decay=decay)
                                              for params, decay in (([2.0], 0.3), ([0.0], -0.1), ([-1.0], 0.0))])


class TestRunAdam(unittest.TestCase):
    def test_quadratic(self):
        f = Quadratic([1.0, 10.0, 0.1], [3.0, -1.0, 2.0])
        x0 = [0.0, 0.0, 0.0]
        x, losses = run_adam(f, x0, 150, lr=0.1)
        self.assertEqual(x0, [0.0, 0.0, 0.0])
        self.assertEqual(len(losses), 151)
        self.assertLess(losses[-1], losses[0])
        check(self, "run_quadratic_x", x)
        check(self, "run_quadratic_losses", losses)
        x, losses = run_adam(f, [1.0, 1.0, 1.0], 0)
        check(self, "run_zero_steps", (x, losses))

    def test_rosenbrock_with_decay(self):
        x, losses = run_adam(Rosenbrock(), [-1.2, 1.0], 200, lr=0.02, beta1=0.9, beta2=0.99, weight_decay=0.05)
        check(self, "run_rosen_x", x)
        check(self, "run_rosen_losses", losses[::10])
