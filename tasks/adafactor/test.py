import unittest

import numpy as np

from recode_check import check, outcome

from factored.adafactor import (
    adafactor_step,
    factored_second_moment,
    relative_step_size,
    run_adafactor,
    second_moment_decay,
)
from factored.objectives import make_problem
from factored.state import AdafactorState

RUNS = {}


def setUpModule():
    # One problem and two runs shared by the run tests: a 5 x 3 matrix and a vector parameter.
    problem = make_problem(7, 40, 5, 3)
    RUNS["problem"] = problem
    RUNS["matrix"] = run_adafactor(problem, np.full((5, 3), 0.3), 60)
    RUNS["matrix_tuned"] = run_adafactor(problem, np.full((5, 3), 0.5), 40, d=2.0, c=0.5, rho_max=0.05)


def grads(seed, count, shape):
    rs = np.random.RandomState(seed)
    return [rs.standard_normal(shape) * rs.uniform(0.1, 3.0) for _ in range(count)]


class TestRelativeStepSize(unittest.TestCase):
    def test_values(self):
        check(self, "rho_default", [relative_step_size(t) for t in (1, 2, 100, 9999, 10000, 10001, 40000)])
        check(self, "rho_max_0.1", [relative_step_size(t, rho_max=0.1) for t in (1, 50, 100, 400)])
        check(self, "rho_t_mixed", [outcome(relative_step_size, t) for t in (3, 0, -3, 40, 2.5, 10000)])


class TestSecondMomentDecay(unittest.TestCase):
    def test_values(self):
        check(self, "decay_default", [second_moment_decay(t) for t in (1, 2, 3, 10, 1000)])
        check(self, "decay_c0.5", [second_moment_decay(t, c=0.5) for t in (1, 4, 100)])
        check(self, "decay_c1", [second_moment_decay(t, c=1.0) for t in (1, 2, 5)])
        # c = 0 is allowed: the decay is then always zero.
        check(self, "decay_c0", [second_moment_decay(t, c=0.0) for t in (1, 7)])
        check(self, "decay_t_mixed", [outcome(second_moment_decay, t) for t in (4, 0, -1, 25, 1.5, 2)])
        check(self, "decay_c_mixed", [outcome(second_moment_decay, 3, c=c) for c in (0.3, -0.1, 1.2, 0.9)])


class TestFactoredSecondMoment(unittest.TestCase):
    def test_first_step(self):
        # beta2 = 0: only the current gradient counts. The gradient is 2 x 4, so rows sum 4 entries.
        g = np.array([[1.0, -2.0, 0.5, 0.0], [3.0, 1.0, -1.0, 2.0]])
        row, col, v_hat = factored_second_moment(np.zeros(2), np.zeros(4), g, 0.0)
        check(self, "fsm_first_rows", row)
        check(self, "fsm_first_cols", col)
        check(self, "fsm_first_vhat", v_hat)

    def test_running_average(self):
        gs = grads(3, 4, (3, 5))
        row, col = np.zeros(3), np.zeros(5)
        for t, g in enumerate(gs, start=1):
            row, col, v_hat = factored_second_moment(row, col, g, second_moment_decay(t))
        check(self, "fsm_rows", row)
        check(self, "fsm_cols", col)
        check(self, "fsm_vhat", v_hat)
        # A zero gradient leaves eps1 in every sum, so the estimate stays positive.
        check(self, "fsm_zero_grad", factored_second_moment(np.zeros(2), np.zeros(3), np.zeros((2, 3)), 0.0)[2])
        # beta2 = 1 keeps the old statistics.
        check(self, "fsm_beta_one", factored_second_moment(row, col, gs[0], 1.0)[:2])
        check(self, "fsm_errors", [outcome(factored_second_moment, *args) for args in (
            (np.ones(2), np.full(3, 2.0), np.arange(6.0).reshape(2, 3), 0.25),
            (np.zeros(3), np.zeros(4), np.ones((4, 3)), 0.5), (np.zeros(1), np.zeros(3), np.ones((4, 3)), 0.5),
            (np.zeros(4), np.zeros(3), np.ones((4, 3)), 0.5),
            (np.zeros(4), np.zeros(1), np.ones(4), 0.5), (np.zeros(2), np.zeros(3), np.ones((2, 3)), 1.5),
            (np.full(3, 0.5), np.ones(1), np.array([[1.0], [-2.0], [0.5]]), 0.9))])


class TestAdafactorStep(unittest.TestCase):
    def test_first_step_matrix(self):
        X = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
        g = np.array([[0.3, -4.0, 1e-3], [2.0, 0.5, -1.0]])
        state = AdafactorState(X.shape)
        X1 = adafactor_step(X, g, state)
        self.assertEqual(state.step, 1)
        self.assertEqual(X[0, 0], 0.5)
        check(self, "step_first", X1)
        check(self, "step_first_state", (state.row, state.col))

    def test_several_steps_and_clipping(self):
        X = np.array([[0.2, -0.1, 0.4, 0.0], [0.3, 0.1, -0.2, 0.5], [-0.4, 0.0, 0.1, 0.2]])
        state = AdafactorState(X.shape)
        trace = []
        for g in grads(11, 8, X.shape):
            X = adafactor_step(X, g, state)
            trace.append(X)
        check(self, "step_trace", trace)
        check(self, "step_trace_state", (state.row, state.col))
        # A tighter clipping threshold and a larger step cap change every update.
        X = np.array([[0.2, -0.1, 0.4, 0.0], [0.3, 0.1, -0.2, 0.5], [-0.4, 0.0, 0.1, 0.2]])
        state = AdafactorState(X.shape)
        for g in grads(11, 8, X.shape):
            X = adafactor_step(X, g, state, d=0.5, rho_max=0.1)
        check(self, "step_clipped", X)

    def test_vector_and_zero_parameters(self):
        # A vector parameter keeps an unfactored second moment (Algorithm 5).
        x = np.array([1.0, -2.0, 0.25, 3.0])
        state = AdafactorState(x.shape)
        for g in grads(5, 5, x.shape):
            x = adafactor_step(x, g, state)
        check(self, "step_vector", x)
        check(self, "step_vector_v", state.v)
        # Zero-initialised parameters move by eps2 * rho_t, not by zero (nested lists are accepted too).
        Z = adafactor_step([[0.0, 0.0], [0.0, 0.0]], [[1.0, -1.0], [2.0, 0.5]], AdafactorState((2, 2)))
        check(self, "step_zero_params", Z)
        # Gradients as small as sqrt(eps1): epsilon one is part of the estimate.
        check(self, "step_tiny_grad", adafactor_step(np.ones(4), np.array([1e-15, -2e-15, 0.0, 5e-16]), AdafactorState((4,))))
        # A zero gradient leaves the parameters where they are.
        check(self, "step_zero_grad", adafactor_step(np.ones((2, 3)), np.zeros((2, 3)), AdafactorState((2, 3))))
        check(self, "step_errors", [outcome(adafactor_step, np.ones((2, 3)), np.full((2, 3), -0.5), AdafactorState((2, 3))),
                                    outcome(adafactor_step, np.ones((2, 3)), np.ones((3, 2)), AdafactorState((2, 3))),
                                    outcome(adafactor_step, np.ones((2, 3)), np.arange(6.0).reshape(2, 3), AdafactorState((2, 3)), d=2.0),
                                    outcome(adafactor_step, np.ones((2, 3)), np.ones((2, 3)), AdafactorState((2, 3)), d=0.0),
                                    outcome(adafactor_step, np.ones((2, 3)), np.ones((2, 3)), AdafactorState((3, 2))),
                                    outcome(adafactor_step, np.ones(3), np.array([0.5, -1.0, 2.0]), AdafactorState((3,)))])


class TestRunAdafactor(unittest.TestCase):
    def test_default_run(self):
        X, losses = RUNS["matrix"]
        self.assertEqual(len(losses), 61)
        self.assertLess(losses[-1], losses[0])
        check(self, "run_X", X)
        check(self, "run_losses", losses[::6])

    def test_tuned_run_and_errors(self):
        X, losses = RUNS["matrix_tuned"]
        check(self, "run_tuned_X", X)
        check(self, "run_tuned_losses", losses[::5])
        X0 = np.ones((5, 3))
        X, losses = run_adafactor(RUNS["problem"], X0, 0)
        self.assertEqual(X0[0, 0], 1.0)
        check(self, "run_zero_steps", losses)
        check(self, "run_negative_steps", [outcome(run_adafactor, RUNS["problem"], X0, 2), outcome(run_adafactor, RUNS["problem"], X0, -1),
                                           outcome(run_adafactor, RUNS["problem"], X0, 1)])
