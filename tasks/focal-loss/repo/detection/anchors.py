"""Labels of anchors after matching them to ground-truth boxes."""

# An anchor whose best IoU with every ground-truth box is below 0.4.
BACKGROUND = -1
# An anchor whose best IoU is in [0.4, 0.5): left out of the loss.
IGNORE = -2


def one_hot(label, num_classes):
    """Binary targets of one anchor: 1.0 at its class, 0.0 elsewhere; all zeros
    for BACKGROUND. Raises ValueError for IGNORE or a label out of range."""
    if label == BACKGROUND:
        return [0.0] * num_classes
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < num_classes:
        raise ValueError(f"anchor label {label!r} is not a class in [0, {num_classes}) or BACKGROUND")
    out = [0.0] * num_classes
    out[label] = 1.0
    return out
