import math
import random
import unittest

from recode_check import check, outcome

from detection.anchors import BACKGROUND, IGNORE
from detection.focal_loss import (
    focal_loss_star,
    reduce_loss,
    retinanet_classification_loss,
    sigmoid_focal_loss,
    softmax_focal_loss,
)

LOGITS = [2.5, -1.0, 0.3, -3.2, 4.1, 0.0, -0.7, 1.8]
TARGETS = [1, 0, 1, 0, 0, 1, 1, 0]


class AnchorFixture(unittest.TestCase):
    """One synthetic image: 60 anchors, 4 classes, a few foreground and ignored anchors."""

    @classmethod
    def setUpClass(cls):
        rng = random.Random(42)
        cls.K = 4
        cls.logits = [[round(rng.gauss(-2.0, 2.0), 3) for _ in range(cls.K)] for _ in range(60)]
        labels = []
        for _ in range(60):
            u = rng.random()
            labels.append(rng.randrange(cls.K) if u < 0.1 else (IGNORE if u < 0.2 else BACKGROUND))
        cls.labels = labels


class TestReduceLoss(unittest.TestCase):
    def test_reductions(self):
        values = [0.5, 1.25, 0.0, 2.0]
        check(self, "reduce_all", [reduce_loss(values), reduce_loss(values, "sum"), reduce_loss(values, "mean")], rtol=1e-12)
        check(self, "reduce_outcomes", [outcome(reduce_loss, [3.0, 0.5], "sum"), outcome(reduce_loss, [], "mean"), outcome(reduce_loss, [1.5], "mean"),
                                         outcome(reduce_loss, values, "max"), outcome(reduce_loss, [], "none")], rtol=1e-12)


class TestSigmoidFocalLoss(unittest.TestCase):
    def test_defaults(self):
        check(self, "sigmoid_default", sigmoid_focal_loss(LOGITS, TARGETS), rtol=1e-9, atol=1e-12)
        check(self, "sigmoid_mean_sum", [sigmoid_focal_loss(LOGITS, TARGETS, reduction=r) for r in ("mean", "sum")], rtol=1e-9, atol=1e-12)

    def test_alpha_gamma(self):
        check(self, "sigmoid_no_alpha_g2", sigmoid_focal_loss(LOGITS, TARGETS, alpha=None), rtol=1e-9, atol=1e-12)
        check(self, "sigmoid_a075_g05", sigmoid_focal_loss(LOGITS, TARGETS, alpha=0.75, gamma=0.5), rtol=1e-9, atol=1e-12)
        # gamma = 0 and no alpha: binary cross-entropy with logits.
        check(self, "sigmoid_bce", sigmoid_focal_loss(LOGITS, TARGETS, alpha=None, gamma=0.0), rtol=1e-9, atol=1e-12)
        check(self, "sigmoid_g5", sigmoid_focal_loss(LOGITS, TARGETS, alpha=0.5, gamma=5.0, reduction="sum"), rtol=1e-9, atol=1e-12)

    def test_extreme_logits_and_errors(self):
        xs = [-800.0, 800.0, -800.0, 800.0, 35.0, -35.0]
        ys = [1, 0, 0, 1, 1, 1]
        out = sigmoid_focal_loss(xs, ys, alpha=0.25, gamma=2.0)
        self.assertTrue(all(math.isfinite(v) for v in out))
        check(self, "sigmoid_extreme", out, rtol=1e-9, atol=1e-12)
        check(self, "sigmoid_outcomes", [
            outcome(sigmoid_focal_loss, [0.1, 0.2], [1, 0]),
            outcome(sigmoid_focal_loss, [0.1, 0.2], [1, 2]),
            outcome(sigmoid_focal_loss, [0.1, 0.2], [1]),
            outcome(sigmoid_focal_loss, [0.1], [1], alpha=1.0),
            outcome(sigmoid_focal_loss, [0.1], [1], alpha=1.5),
            outcome(sigmoid_focal_loss, [0.1], [1], gamma=-1.0),
            outcome(sigmoid_focal_loss, [-0.4], [0], gamma=0.0),
            outcome(sigmoid_focal_loss, [float("nan")], [1]),
        ], rtol=1e-9, atol=1e-12)


class TestSoftmaxFocalLoss(unittest.TestCase):
    def test_rows(self):
        rng = random.Random(8)
        logits = [[round(rng.gauss(0.0, 2.5), 3) for _ in range(5)] for _ in range(12)]
        targets = [rng.randrange(5) for _ in range(12)]
        check(self, "softmax_default", softmax_focal_loss(logits, targets), rtol=1e-9, atol=1e-12)
        weights = [0.25, 1.0, 0.5, 2.0, 0.75]
        check(self, "softmax_alpha_g1", softmax_focal_loss(logits, targets, alpha=weights, gamma=1.0, reduction="mean"), rtol=1e-9, atol=1e-12)
        check(self, "softmax_ce", softmax_focal_loss(logits, targets, gamma=0.0, reduction="sum"), rtol=1e-9, atol=1e-12)

    def test_confident_rows_and_errors(self):
        logits = [[40.0, 0.0, 0.0], [0.0, 1000.0, -1000.0], [-50.0, 0.0, 50.0], [0.0, 0.0, 0.0]]
        out = softmax_focal_loss(logits, [0, 1, 0, 2], gamma=2.0)
        self.assertTrue(all(math.isfinite(v) for v in out))
        check(self, "softmax_confident", out, rtol=1e-9, atol=1e-12)
        check(self, "softmax_confident_g0", softmax_focal_loss(logits, [0, 1, 0, 2], gamma=0.0), rtol=1e-9, atol=1e-12)
        check(self, "softmax_outcomes", [
            outcome(softmax_focal_loss, [[0.0, 1.0]], [1]),
            outcome(softmax_focal_loss, [[0.0, 1.0]], [2]),
            outcome(softmax_focal_loss, [[0.0, 1.0]], [0, 1]),
            outcome(softmax_focal_loss, [[0.0, 1.0]], [1], alpha=[0.5, 2.0]),
            outcome(softmax_focal_loss, [[0.0, 1.0]], [1], alpha=[1.0]),
            outcome(softmax_focal_loss, [[0.0, 1.0]], [-1]),
            outcome(softmax_focal_loss, [[0.5, -1.0], [2.0, 0.0]], [0, 1], reduction="mean"),
            outcome(softmax_focal_loss, [[0.0, float("inf")]], [0]),
        ], rtol=1e-9, atol=1e-12)


class TestFocalLossStar(unittest.TestCase):
    def test_values(self):
        check(self, "star_default", focal_loss_star(LOGITS, TARGETS), rtol=1e-9, atol=1e-12)
        check(self, "star_g2_b1", focal_loss_star(LOGITS, TARGETS, gamma=2.0, beta=1.0), rtol=1e-9, atol=1e-12)
        check(self, "star_g4_bm1_alpha", focal_loss_star(LOGITS, TARGETS, gamma=4.0, beta=-1.0, alpha=0.25, reduction="mean"), rtol=1e-9, atol=1e-12)
        check(self, "star_outcomes", [outcome(focal_loss_star, LOGITS, TARGETS, gamma=0.5), outcome(focal_loss_star, LOGITS, TARGETS, gamma=0.0),
                                       outcome(focal_loss_star, LOGITS, TARGETS, alpha=0.0, reduction="sum"),
                                       outcome(focal_loss_star, LOGITS, TARGETS, alpha=-0.25)], rtol=1e-9, atol=1e-12)
        check(self, "star_extreme", focal_loss_star([-900.0, 900.0], [1, 1], gamma=3.0, beta=2.0), rtol=1e-9, atol=1e-12)


class TestRetinaNetLoss(AnchorFixture):
    def test_image_loss(self):
        self.assertTrue(any(0 <= y < self.K for y in self.labels) and IGNORE in self.labels)
        check(self, "retina_default", retinanet_classification_loss(self.logits, self.labels), rtol=1e-9, atol=1e-12)
        check(self, "retina_a05_g1", retinanet_classification_loss(self.logits, self.labels, alpha=0.5, gamma=1.0), rtol=1e-9, atol=1e-12)

    def test_background_only_and_ignored(self):
        bg = [BACKGROUND] * len(self.labels)
        check(self, "retina_background_only", retinanet_classification_loss(self.logits, bg), rtol=1e-9, atol=1e-12)
        ignored = [IGNORE if y == BACKGROUND else y for y in self.labels]
        check(self, "retina_only_fg", retinanet_classification_loss(self.logits, ignored), rtol=1e-9, atol=1e-12)
        check(self, "retina_outcomes", [
            outcome(retinanet_classification_loss, self.logits[:-1], self.labels[:-1]),
            outcome(retinanet_classification_loss, self.logits, self.labels[:-1]),
            outcome(retinanet_classification_loss, [[0.0, 1.0]], [1]),
            outcome(retinanet_classification_loss, [[0.0, 1.0]], [2]),
        ], rtol=1e-9, atol=1e-12)
