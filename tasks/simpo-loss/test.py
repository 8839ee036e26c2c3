import math
import random
import unittest

from recode_check import check, outcome

from prefopt.batch import IGNORE_INDEX, make_example
from prefopt.simpo import log_sigmoid, sequence_log_prob, simpo_batch_loss, simpo_loss

VOCAB = 7
BATCH = []


def toy_logits(seed):
    rng = random.Random(seed)

    def fn(t, ids):
        # depends on the current token so that the shift matters
        return [round(rng.gauss(0.0, 2.0) + (1.5 if (ids[t] + 1) % VOCAB == v else 0.0), 3) for v in range(VOCAB)]

    return fn


def setUpModule():
    rng = random.Random(2024)
    BATCH.clear()
    for i in range(5):
        prompt = [rng.randrange(VOCAB) for _ in range(rng.randint(1, 4))]
        chosen = [rng.randrange(VOCAB) for _ in range(rng.randint(1, 6))]
        rejected = [rng.randrange(VOCAB) for _ in range(rng.randint(2, 12))]
        cl, cy = make_example(prompt, chosen, VOCAB, toy_logits(100 + i))
        rl, ry = make_example(prompt, rejected, VOCAB, toy_logits(200 + i))
        BATCH.append({"chosen_logits": cl, "chosen_labels": cy, "rejected_logits": rl, "rejected_labels": ry})


# Hand example: 4 positions, vocabulary of 3; position 0 is the prompt.
HAND_LOGITS = [[2.0, 0.5, -1.0], [0.0, 1.0, 3.0], [1.5, 1.5, 0.0], [0.3, -0.2, 0.9]]
HAND_LABELS = [IGNORE_INDEX, 2, 0, 1]


class TestLogSigmoid(unittest.TestCase):
    def test_values(self):
        xs = [-50.0, -5.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 5.0, 50.0]
        check(self, "logsig_values", [log_sigmoid(x) for x in xs], rtol=1e-12)

    def test_extremes(self):
        # No overflow, no log(0), and the tiny tail for large x is not rounded to zero.
        check(self, "logsig_extremes", [log_sigmoid(x) for x in (-1000.0, -800.0, 800.0, 1000.0, -1e6)], rtol=1e-12, atol=1e-300)
        check(self, "logsig_tail", [log_sigmoid(x) for x in (40.0, 60.0, 300.0)], rtol=1e-12)


class TestSequenceLogProb(unittest.TestCase):
    def test_shift_and_mask(self):
        check(self, "seqlp_hand_avg", sequence_log_prob(HAND_LOGITS, HAND_LABELS), rtol=1e-12)
        check(self, "seqlp_hand_sum", sequence_log_prob(HAND_LOGITS, HAND_LABELS, average=False), rtol=1e-12)
        # A different ignore index: 0 is now the unscored label.
        check(self, "seqlp_hand_ignore0", sequence_log_prob(HAND_LOGITS, [0, 2, 0, 1], ignore_index=0), rtol=1e-12)

    def test_random_examples(self):
        avg = [sequence_log_prob(p["chosen_logits"], p["chosen_labels"]) for p in BATCH]
        tot = [sequence_log_prob(p["rejected_logits"], p["rejected_labels"], average=False) for p in BATCH]
        check(self, "seqlp_random_avg", avg, rtol=1e-12)
        check(self, "seqlp_random_sum", tot, rtol=1e-12)

    def test_single_token_and_errors(self):
        check(self, "seqlp_single", sequence_log_prob([[1000.0, 0.0], [0.0, 0.0]], [IGNORE_INDEX, 1]), rtol=1e-12)
        check(self, "seqlp_outcomes", [
            outcome(sequence_log_prob, [[0.0, 1.0], [1.0, 0.0]], [IGNORE_INDEX, 0]),
            outcome(sequence_log_prob, [[0.0, 1.0], [1.0, 0.0]], [1, IGNORE_INDEX]),  # nothing after the shift
            outcome(sequence_log_prob, [[0.5, -1.0, 2.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [IGNORE_INDEX, 2, 1]),
            outcome(sequence_log_prob, [[0.0, 1.0]], [IGNORE_INDEX, 1]),
            outcome(sequence_log_prob, [[0.0, 1.0], [1.0, 0.0]], [4, 1], ignore_index=4),
        ], rtol=1e-12)
        check(self, "seqlp_label_outcomes", [outcome(sequence_log_prob, [[0.0, 1.0], [1.0, 0.0]], [IGNORE_INDEX, y]) for y in (0, 5, 2, 1, -1)], rtol=1e-12)
        check(self, "seqlp_sum_outcomes", [outcome(sequence_log_prob, [[0.0, 1.0], [1.0, 0.0]], labels, average=False)
                                           for labels in ([IGNORE_INDEX, 0], [1, IGNORE_INDEX], [1, 1])], rtol=1e-12)


class TestSimPOLoss(unittest.TestCase):
    def test_hand_batch(self):
        losses, rw, rl = simpo_loss([-1.2, -0.8, -2.0], [-1.5, -0.7, -3.1])
        check(self, "loss_default", losses, rtol=1e-12)
        check(self, "rewards_default", [rw, rl], rtol=1e-12)

    def test_margin_and_beta(self):
        chosen, rejected = [-0.9, -1.4, -0.35, -2.2], [-1.1, -1.0, -0.9, -2.25]
        check(self, "loss_b25_g14", simpo_loss(chosen, rejected, beta=2.5, gamma=1.4)[0], rtol=1e-12)
        check(self, "loss_b10_g0", simpo_loss(chosen, rejected, beta=10.0, gamma=0.0)[0], rtol=1e-12)
        # Very confident pairs: the loss must stay finite and keep its tiny tail.
        losses = simpo_loss([-0.1, -400.0], [-400.0, -0.1], beta=10.0, gamma=3.0)[0]
        self.assertTrue(all(math.isfinite(v) for v in losses))
        check(self, "loss_extreme", losses, rtol=1e-12)

    def test_errors(self):
        check(self, "loss_beta_outcomes", [outcome(simpo_loss, [-1.0], [-2.0], beta=beta) for beta in (0.5, 0.0, -1.0, 3.0, float("nan"), float("inf"), 1e-3)],
              rtol=1e-12)
        check(self, "loss_outcomes", [
            outcome(simpo_loss, [-1.0], [-2.0], gamma=2.0),
            outcome(simpo_loss, [-1.0], [-2.0], gamma=float("nan")),
            outcome(simpo_loss, [-1.0, -2.0], [-2.0]),
            outcome(simpo_loss, [-1.0, -2.0], [-2.0, -0.5]),
            outcome(simpo_loss, [], []),
        ], rtol=1e-12)
        check(self, "loss_negative_gamma", simpo_loss([-1.0], [-1.0], beta=1.0, gamma=-0.5)[0], rtol=1e-12)


class TestBatch(unittest.TestCase):
    def test_batch_metrics(self):
        check(self, "batch_default", simpo_batch_loss(BATCH), rtol=1e-12)
        check(self, "batch_b25_g1", simpo_batch_loss(BATCH, beta=2.5, gamma=1.0), rtol=1e-12)

    def test_length_normalisation(self):
        # The chosen response is long with a lower total log-likelihood but a higher per-token one.
        V = 4
        long_logits = [[0.0] * V] + [[3.0, 0.0, 0.0, 0.0] for _ in range(9)]
        long_labels = [IGNORE_INDEX] + [0] * 9
        short_logits = [[0.0] * V, [0.0, 0.0, 0.0, 0.0], [0.0] * V]
        short_labels = [IGNORE_INDEX, 1, 2]
        pair = {"chosen_logits": long_logits, "chosen_labels": long_labels, "rejected_logits": short_logits, "rejected_labels": short_labels}
        out = simpo_batch_loss([pair], beta=2.0, gamma=0.5)
        check(self, "batch_length_norm", out, rtol=1e-12)
        check(self, "batch_size_outcomes", [outcome(simpo_batch_loss, batch) for batch in (BATCH[:2], [], BATCH[3:])], rtol=1e-12)
        check(self, "batch_ties", simpo_batch_loss([dict(pair, rejected_logits=long_logits, rejected_labels=long_labels)]), rtol=1e-12)
