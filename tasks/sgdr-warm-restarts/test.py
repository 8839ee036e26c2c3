import random
import unittest

from recode_check import check, outcome

from schedules.sgdr import batch_learning_rates, cycle_position, sgdr_learning_rate, train_with_restarts
from schedules.training import make_problem


class TestCyclePosition(unittest.TestCase):
    def test_doubling_periods(self):
        # T_0 = 10, T_mult = 2: runs of 10, 20, 40, 80 epochs, restarts at 10, 30, 70, 150.
        epochs = [0, 0.25, 9.5, 10, 10.75, 29.999, 30, 69, 70, 149.5, 150]
        check(self, "position_T10_x2", [cycle_position(e, 10, 2) for e in epochs])
        check(self, "position_T10_x1", [cycle_position(e, 10) for e in (0, 9.9, 10, 25, 40.5)])

    def test_exact_boundaries(self):
        # T_0 = 1, T_mult = 3: restarts at 1, 4, 13, 40, 121, 364; each one starts a run with T_cur = 0.
        check(self, "position_boundaries_x3", [cycle_position(e, 1, 3) for e in (1, 4, 13, 40, 121, 364)])
        check(self, "position_before_boundaries_x3", [cycle_position(e - 0.5, 1, 3)[:2] for e in (4, 13, 40, 121, 364)])

    def test_errors(self):
        check(self, "position_int_epoch", cycle_position(7, 3, 1))
        calls = (
            (3.5, 10, 2),
            (-0.5, 10, 2),
            (float("nan"), 10, 2),
            (12.0, 4, 3),
            (1.0, 0, 2),
            (1.0, 10, 0),
            (5.25, 2, 1),
            (1.0, 10, 1.5),
            (1.0, 2.0, 2),
            (44.0, 3, 2),
            (1.0, True, 2),
        )
        check(self, "position_args", [outcome(cycle_position, *args) for args in calls], rtol=1e-12)


class TestSGDRLearningRate(unittest.TestCase):
    def test_cosine_values(self):
        epochs = [0, 0.5, 2.5, 5, 7.5, 9.99, 10, 12.5, 20, 29.5, 30]
        check(self, "lr_T10_x2", [sgdr_learning_rate(e, 0.1, 0.001, 10, 2) for e in epochs], rtol=1e-9, atol=1e-15)
        # eta_min = 0 and T_mult = 1: the same cosine every T_0 epochs.
        check(self, "lr_T4_x1", [sgdr_learning_rate(e, 0.05, 0.0, 4) for e in (0, 1, 2, 3, 3.5, 4, 5, 9)], rtol=1e-9, atol=1e-15)

    def test_restart_and_errors(self):
        # Right at a restart the rate jumps back to eta_max.
        check(self, "lr_at_restarts", [sgdr_learning_rate(e, 0.2, 0.01, 1, 3) for e in (0, 1, 4, 13, 121)])
        check(self, "lr_constant_when_equal", sgdr_learning_rate(3.3, 0.05, 0.05, 2, 2))
        rates = ((0.1, 0.01), (0.01, 0.1), (0.05, 0.05))
        check(self, "lr_min_max", [outcome(sgdr_learning_rate, 1.0, hi, lo, 10, 2) for hi, lo in rates], rtol=1e-9, atol=1e-15)
        rates = ((0.2, 0.0), (0.1, -0.01), (0.1, 0.02))
        check(self, "lr_min_sign", [outcome(sgdr_learning_rate, 1.0, hi, lo, 10, 2) for hi, lo in rates], rtol=1e-9, atol=1e-15)
        check(
            self,
            "lr_epoch_sign",
            [outcome(sgdr_learning_rate, e, 0.1, 0.0, 10, 2) for e in (4.0, -1.0, 25.0)],
            rtol=1e-9,
            atol=1e-15,
        )


class TestBatchLearningRates(unittest.TestCase):
    def test_per_batch_schedule(self):
        lrs = batch_learning_rates(7, 4, 0.1, 0.0, 1, 2)
        self.assertEqual(len(lrs), 28)
        # The first batch of every run (batches 0, 4 and 12) gets eta_max.
        self.assertEqual([lrs[k] for k in (0, 4, 12)], [0.1, 0.1, 0.1])
        check(self, "batch_T1_x2", lrs, rtol=1e-9, atol=1e-15)
        check(self, "batch_T3_x1_min", batch_learning_rates(4, 3, 0.5, 0.05, 3), rtol=1e-9, atol=1e-15)

    def test_epoch_level_and_errors(self):
        # One batch per epoch: T_cur only takes integer values.
        check(self, "batch_one_per_epoch", batch_learning_rates(6, 1, 1.0, 0.0, 2, 2), rtol=1e-9, atol=1e-15)
        check(self, "batch_no_epochs", batch_learning_rates(0, 5, 1.0, 0.0, 2, 2))
        check(
            self,
            "batch_sizes",
            [outcome(batch_learning_rates, 3, b, 1.0, 0.0, 2, 2) for b in (2, 0, 3)],
            rtol=1e-9,
            atol=1e-15,
        )
        check(
            self,
            "batch_epoch_counts",
            [outcome(batch_learning_rates, n, 2, 1.0, 0.0, 2, 2) for n in (4, -1, 1)],
            rtol=1e-9,
            atol=1e-15,
        )


class TestTrainWithRestarts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.problem = make_problem(random.Random(3), 40, 3)

    def test_snapshots_at_run_ends(self):
        # T_0 = 1, T_mult = 2: runs end after epochs 1, 3 and 7.
        x0 = [0.0, 0.0, 0.0]
        x, snaps = train_with_restarts(self.problem, x0, 7, 4, 0.5, 0.0, 1, 2)
        self.assertEqual(x0, [0.0, 0.0, 0.0])
        self.assertEqual(len(snaps), 3)
        self.assertEqual(snaps[-1], x)
        check(self, "train_x", x)
        check(self, "train_snapshots", snaps)

    def test_unfinished_run(self):
        # Stopping after 6 epochs: the third run (epochs 3 to 7) is not complete, so two snapshots.
        x, snaps = train_with_restarts(self.problem, [1.0, -1.0, 0.5], 6, 5, 0.3, 0.01, 1, 2, momentum=0.5)
        self.assertEqual(len(snaps), 2)
        check(self, "train_unfinished_x", x)
        check(self, "train_unfinished_snapshots", snaps)
        check(self, "train_constant_period", train_with_restarts(self.problem, [0.0, 0.0, 0.0], 4, 2, 0.2, 0.0, 2))
