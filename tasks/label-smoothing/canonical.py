"""Label smoothing regularisation (Szegedy et al., "Rethinking the Inception
Architecture for Computer Vision", CVPR 2016, Sec. 7), with the view of
Mueller, Kornblith and Hinton ("When Does Label Smoothing Help?", NeurIPS 2019)."""

import math

from smoothing.numerics import check_epsilon, check_label, check_row, log_softmax, mean


def smooth_labels(label, num_classes, epsilon=0.1):
    """The smoothed target distribution q'(k) = (1 - eps) delta_{k,y} + eps / K."""
    check_label(label, num_classes)
    check_epsilon(epsilon)
    # Sec. 7: q'(k|x) = (1 - eps) delta_{k,y} + eps u(k) with the uniform prior
    # u(k) = 1/K over ALL K classes, the true class included (so the true class
    # gets 1 - eps + eps/K, every other class eps/K).
    share = epsilon / num_classes
    return [(1.0 - epsilon) + share if k == label else share for k in range(num_classes)]


def _row_terms(row, label):
    check_row(row)
    check_label(label, len(row))
    logp = log_softmax(row)
    # H(q, p) = -log p(y): the ordinary cross-entropy with the one-hot label.
    ce = -logp[label]
    # H(u, p) = -(1/K) sum_k log p(k): cross-entropy against the uniform prior.
    uniform_ce = -mean(logp)
    return ce, uniform_ce


def label_smoothing_cross_entropy(logits, labels, epsilon=0.1, reduction="mean"):
    """Cross-entropy of softmax(logits) against the smoothed targets."""
    check_epsilon(epsilon)
    if len(logits) != len(labels):
        raise ValueError(f"{len(logits)} rows of logits but {len(labels)} labels")
    if len(logits) == 0:
        raise ValueError("empty batch")
    losses = []
    for row, y in zip(logits, labels):
        ce, uniform_ce = _row_terms(row, y)
        # Sec. 7: H(q', p) = -sum_k q'(k) log p(k) = (1 - eps) H(q, p) + eps H(u, p),
        # computed from log-softmax so that large logits do not overflow.
        losses.append((1.0 - epsilon) * ce + epsilon * uniform_ce)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return math.fsum(losses)
    if reduction == "mean":
        return mean(losses)
    raise ValueError(f"unknown reduction {reduction!r}")


def smoothing_decomposition(logits, label, epsilon=0.1):
    """The two terms of Sec. 7 for one example, and their KL form."""
    check_epsilon(epsilon)
    ce, uniform_ce = _row_terms(logits, label)
    k = len(logits)
    return {
        "cross_entropy": ce,
        "uniform_cross_entropy": uniform_ce,
        # Sec. 7: H(u, p) = D_KL(u || p) + H(u), and H(u) = log K for the uniform u.
        "kl_uniform": uniform_ce - math.log(k),
        "loss": (1.0 - epsilon) * ce + epsilon * uniform_ce,
    }


def smoothed_optimum(num_classes, epsilon=0.1):
    """Where label smoothing drives the predictions: the minimiser of H(q', p)."""
    check_label(0, num_classes)
    check_epsilon(epsilon)
    # H(q', p) is minimised by p = q' (Gibbs' inequality): the model is pushed to
    # give the true class 1 - eps + eps/K and every other class eps/K, never
    # full confidence (the calibration effect studied by Mueller et al.).
    target = 1.0 - epsilon + epsilon / num_classes
    other = epsilon / num_classes
    # Mueller et al., Sec. 2: the logit of the correct class then exceeds every
    # incorrect logit by the same constant, log(target / other), which depends
    # only on eps and K (infinite without smoothing).
    gap = math.inf if other == 0.0 else math.log(target / other)
    return {"target_probability": target, "other_probability": other, "logit_gap": gap}
