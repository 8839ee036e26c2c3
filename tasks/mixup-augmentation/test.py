import unittest

import numpy as np

from recode_check import check, outcome

from mixaug.mixup import mixup_batch, mixup_train_step, one_hot, sample_lambda, soft_cross_entropy
from mixaug.nn import make_blobs
from mixaug.rng import make_rng

X4 = np.array([[0.0, 1.0, 2.0], [3.0, -1.0, 0.5], [1.5, 1.5, -2.0], [-4.0, 0.0, 1.0]])
Y4 = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])


class TestOneHot(unittest.TestCase):
    def test_values_and_errors(self):
        check(self, "one_hot", one_hot([2, 0, 1, 2], 3))
        check(self, "one_hot_empty", one_hot(np.array([], dtype=np.int64), 4))
        check(self, "one_hot_single_class", one_hot([0, 0], 1))
        calls = (([1, 0], 2), ([0, 3], 3), ([-1], 3), ([2, 2, 1], 4), ([0.5], 3), ([0], 1))
        check(self, "one_hot_args", [outcome(one_hot, *args) for args in calls])


class TestSampleLambda(unittest.TestCase):
    def test_seeded_draws(self):
        rng = make_rng(0)
        check(self, "lambda_draws", [sample_lambda(a, rng) for a in (0.2, 0.2, 1.0, 1.0, 4.0, 0.4)])

    def test_alpha_zero_and_errors(self):
        # alpha = 0 means no mixing: lambda is 1 and the generator is not used.
        rng = make_rng(5)
        values = [sample_lambda(0, rng), sample_lambda(0.0, rng), rng.random_sample()]
        check(self, "lambda_alpha_zero", values)
        alphas = (0.3, -0.5, float("nan"), 2.0, float("inf"), 0.0)
        check(self, "lambda_alpha_range", [outcome(sample_lambda, a, make_rng(0)) for a in alphas])


class TestMixupBatch(unittest.TestCase):
    def test_mixed_pairs(self):
        x_mixed, y_mixed, lam, index = mixup_batch(X4, Y4, 0.4, make_rng(3))
        self.assertEqual(sorted(index.tolist()), [0, 1, 2, 3])
        np.testing.assert_allclose(y_mixed.sum(axis=1), 1.0)
        check(self, "batch_lambda", lam)
        check(self, "batch_index", index.tolist())
        check(self, "batch_x", x_mixed)
        check(self, "batch_y", y_mixed)
        self.assertEqual(X4[0, 1], 1.0)

    def test_draw_order_and_alpha_zero(self):
        # Several batches from one generator: each batch draws lambda first, then the permutation.
        rng = make_rng(11)
        out = [mixup_batch(X4, Y4, 1.0, rng)[2:] for _ in range(3)]
        check(self, "batch_sequence", [(lam, idx.tolist()) for lam, idx in out])
        # alpha = 0: lambda = 1, the batch is unchanged, but the permutation is still drawn.
        rng = make_rng(2)
        x_mixed, y_mixed, lam, index = mixup_batch(X4, Y4, 0.0, rng)
        check(self, "batch_alpha_zero", (x_mixed, y_mixed, lam, index.tolist(), rng.randint(1000)))
        # Plain lists and a batch of scalar features are accepted.
        check(self, "batch_lists_1d", mixup_batch([1.0, 2.0, 4.0], [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], 2.0, make_rng(8))[:3])
        pairs = ((X4[:3], Y4[:3]), (X4, Y4[:3]), (X4[1:], Y4[1:]))
        check(self, "batch_lengths", [outcome(mixup_batch, x, y, 0.5, make_rng(0)) for x, y in pairs])
        pairs = ((X4[:1], Y4[:1]), (np.zeros((0, 3)), np.zeros((0, 2))), (X4[:2], Y4[:2]))
        check(self, "batch_sizes", [outcome(mixup_batch, x, y, 0.5, make_rng(0)) for x, y in pairs])


class TestSoftCrossEntropy(unittest.TestCase):
    def test_values(self):
        logits = np.array([[2.0, 0.5, -1.0], [0.0, 0.0, 0.0], [1000.0, 998.0, -1000.0]])
        targets = np.array([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.25, 0.75, 0.0]])
        check(self, "ce_values", soft_cross_entropy(logits, targets))
        # Linear in the target: the mixed target gives lambda CE(a) + (1 - lambda) CE(b).
        a, b, lam = one_hot([0, 2, 1], 3), one_hot([1, 1, 0], 3), 0.3
        mixed = soft_cross_entropy(logits, lam * a + (1 - lam) * b)
        self.assertAlmostEqual(mixed, lam * soft_cross_entropy(logits, a) + (1 - lam) * soft_cross_entropy(logits, b), places=9)
        check(self, "ce_mixed", mixed)
        check(self, "ce_lists", soft_cross_entropy([[0.0, 1.0], [3.0, -3.0]], [[0.5, 0.5], [1.0, 0.0]]))
        shapes = (targets[::-1].copy(), targets[:, :2], targets[:1], np.full((3, 3), 1.0 / 3.0))
        check(self, "ce_shapes", [outcome(soft_cross_entropy, logits, t) for t in shapes])


class TestMixupTrainStep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        x, labels = make_blobs(make_rng(4), 8, [[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]], spread=1.2)
        cls.x, cls.y = x, one_hot(labels, 3)

    def test_training_run(self):
        rng = make_rng(21)
        W = np.zeros((2, 3))
        losses = []
        for _ in range(25):
            W, loss = mixup_train_step(W, self.x, self.y, 0.5, 0.5, rng)
            losses.append(loss)
        self.assertLess(losses[-1], losses[0])
        check(self, "train_W", W)
        check(self, "train_losses", losses[::4])

    def test_no_mixing_is_plain_sgd(self):
        # alpha = 0 trains on the batch itself (the permutation is still drawn and ignored).
        W, loss = mixup_train_step([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], self.x, self.y, 0.0, 0.1, make_rng(0))
        check(self, "train_alpha_zero", (W, loss))
