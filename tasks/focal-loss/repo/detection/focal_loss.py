"""Focal loss (Lin, Goyal, Girshick, He and Dollar, "Focal Loss for Dense
Object Detection", ICCV 2017), computed from logits.

reduce_loss is written; add sigmoid_focal_loss, softmax_focal_loss,
focal_loss_star and retinanet_classification_loss (see instruction.md)."""

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
