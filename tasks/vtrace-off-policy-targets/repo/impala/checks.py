"""Input validation shared by the learner's estimators."""


def check_trajectory(**seqs):
    """Raise ValueError unless every named sequence has the same length, at least one."""
    lengths = {name: len(s) for name, s in seqs.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"trajectory sequences differ in length: {lengths}")
    if next(iter(lengths.values())) == 0:
        raise ValueError("empty trajectory")


def check_discounts(discounts):
    """Raise ValueError unless every per-step discount is a number in [0, 1]."""
    for t, g in enumerate(discounts):
        if isinstance(g, bool) or not isinstance(g, (int, float)) or not 0.0 <= g <= 1.0:
            raise ValueError(f"discount at step {t} must be in [0, 1], got {g!r}")


def check_threshold(name, value):
    """Raise ValueError unless value is None (no clipping) or a positive number."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0.0:
        raise ValueError(f"{name} must be a positive number or None, got {value!r}")
