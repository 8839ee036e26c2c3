import unittest

from recode_check import check, outcome
from smoothing.ema import debiased_ema


class TestDebiasedEma(unittest.TestCase):
    def test_values(self):
        check(self, "ema_ramp", debiased_ema([1.0, 2.0, 3.0, 4.0], 0.9), rtol=1e-12)
        check(self, "ema_no_decay", debiased_ema([5.0, -1.0], 0.0), rtol=1e-12)
        # A constant sequence is its own average from the first step on: no bias towards zero.
        for v in debiased_ema([2.5] * 6, 0.99):
            self.assertAlmostEqual(v, 2.5, places=12)
        self.assertEqual(debiased_ema([], 0.5), [])

    def test_errors(self):
        # Good and bad values of beta through one call, in one check: what each gives, a value or the error it
        # raises, is recorded from the canonical solution and checked (recode_check.outcome).
        betas = (0.999, 1.0, 0.5, -0.1, 1.5)
        check(self, "ema_betas", [outcome(debiased_ema, [1.0, 3.0], beta) for beta in betas], rtol=1e-9)
