"""Focal loss (Lin, Goyal, Girshick, He and Dollar, "Focal Loss for Dense
Object Detection", ICCV 2017), computed from logits."""

import math

from detection.anchors import BACKGROUND, IGNORE, one_hot
from detection.numerics import check_alpha, check_finite_list, check_gamma, log_sigmoid, log_softmax


def reduce_loss(losses, reduction="none"):
    """Apply a reduction to a list of per-element losses: "none" (a new list),
    "sum" or "mean" (ValueError for the mean of an empty list)."""
    if reduction == "none":
        return list(losses)
    if reduction == "sum":
        return math.fsum(losses)
    if reduction == "mean":
        if len(losses) == 0:
            raise ValueError("mean of an empty list of losses")
        return math.fsum(losses) / len(losses)
    raise ValueError(f"unknown reduction {reduction!r}")


def _check_binary_targets(logits, targets):
    if len(logits) != len(targets):
        raise ValueError(f"{len(logits)} logits but {len(targets)} targets")
    check_finite_list("logits", logits)
    for i, y in enumerate(targets):
        if isinstance(y, bool) or y not in (0, 1):
            raise ValueError(f"targets[{i}] = {y!r} is not 0 or 1")


def sigmoid_focal_loss(logits, targets, alpha=0.25, gamma=2.0, reduction="none"):
    """Binary focal loss FL(p_t) = -alpha_t (1 - p_t)^gamma log(p_t), from logits."""
    _check_binary_targets(logits, targets)
    check_alpha(alpha)
    check_gamma(gamma)
    out = []
    for x, y in zip(logits, targets):
        # Eq. (2): p_t = p if y = 1 else 1 - p. With p = sigma(x) and
        # 1 - sigma(x) = sigma(-x), p_t = sigma(x_t) for x_t = x or -x, and
        # 1 - p_t = sigma(-x_t): everything stays in the log domain (the paper
        # notes that computing p with the loss, from logits, gives stability).
        x_t = x if y == 1 else -x
        log_p_t = log_sigmoid(x_t)  # CE(p_t) = -log(p_t), Eq. (1)-(2)
        # Eq. (4): the modulating factor (1 - p_t)^gamma = exp(gamma * log sigma(-x_t)).
        loss = -math.exp(gamma * log_sigmoid(-x_t)) * log_p_t
        if alpha is not None:
            # Eq. (3)/(5): alpha_t = alpha for the positive class (y = 1),
            # 1 - alpha for the negative class.
            loss *= alpha if y == 1 else 1.0 - alpha
        out.append(loss)
    return reduce_loss(out, reduction)


def softmax_focal_loss(logits, targets, alpha=None, gamma=2.0, reduction="none"):
    """Multi-class focal loss from rows of class logits and integer targets."""
    if len(logits) != len(targets):
        raise ValueError(f"{len(logits)} rows of logits but {len(targets)} targets")
    check_gamma(gamma)
    out = []
    for i, (row, y) in enumerate(zip(logits, targets)):
        check_finite_list(f"logits[{i}]", row)
        if isinstance(y, bool) or not isinstance(y, int) or not 0 <= y < len(row):
            raise ValueError(f"targets[{i}] = {y!r} is not a class index")
        if alpha is not None and len(alpha) != len(row):
            raise ValueError("alpha must have one weight per class")
        # Sec. 3 extends to the multi-class case: p_t is the softmax
        # probability of the true class.
        log_p_t = log_softmax(row)[y]
        # 1 - p_t = -expm1(log p_t), exact even when p_t is close to 1.
        loss = -((-math.expm1(log_p_t)) ** gamma) * log_p_t
        if alpha is not None:
            loss *= alpha[y]  # alpha_t: the weight of the true class
        out.append(loss)
    return reduce_loss(out, reduction)


def focal_loss_star(logits, targets, gamma=1.0, beta=0.0, alpha=None, reduction="none"):
    """FL* of Appendix A: -log(sigma(gamma * x_t + beta)) / gamma."""
    _check_binary_targets(logits, targets)
    check_alpha(alpha)
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not (math.isfinite(gamma) and gamma > 0):
        raise ValueError(f"gamma must be a positive finite number, got {gamma!r}")
    check_finite_list("beta", [beta])
    out = []
    for x, y in zip(logits, targets):
        # Appendix A: x_t = y x with y in {-1, +1} (targets 1 and 0 here),
        # p*_t = sigma(gamma x_t + beta), FL* = -log(p*_t) / gamma.
        x_t = x if y == 1 else -x
        loss = -log_sigmoid(gamma * x_t + beta) / gamma
        if alpha is not None:
            loss *= alpha if y == 1 else 1.0 - alpha
        out.append(loss)
    return reduce_loss(out, reduction)


def retinanet_classification_loss(logits, anchor_labels, alpha=0.25, gamma=2.0):
    """Image-level focal loss of a RetinaNet classification subnet."""
    if len(logits) != len(anchor_labels):
        raise ValueError(f"{len(logits)} anchors of logits but {len(anchor_labels)} labels")
    total = []
    num_foreground = 0
    for row, label in zip(logits, anchor_labels):
        # Sec. 4: anchors whose IoU is in [0.4, 0.5) are ignored during training.
        if label == IGNORE:
            continue
        # Sec. 4: each anchor has K binary (sigmoid) classifiers; its target is a
        # one-hot vector of length K, all zeros for background.
        targets = one_hot(label, len(row))
        if label != BACKGROUND:
            num_foreground += 1
        total.extend(sigmoid_focal_loss(row, targets, alpha, gamma))
    # Sec. 4: the total is the SUM over all anchors, normalised by the number of
    # anchors assigned to a ground-truth box (not by the number of anchors);
    # at least 1, for an image without any object (detectron2's convention).
    return math.fsum(total) / max(1, num_foreground)
