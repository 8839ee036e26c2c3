"""Conventions for tokenised preference data."""

import math

# Label value of a position that is not scored (prompt tokens, padding), as in
# Hugging Face models and trainers.
IGNORE_INDEX = -100


def check_same_length(name_a, a, name_b, b):
    """Raise ValueError unless the two sequences have the same length."""
    if len(a) != len(b):
        raise ValueError(f"{name_a} has {len(a)} items but {name_b} has {len(b)}")


def check_positive(name, value):
    """Raise ValueError unless value is a finite number > 0 (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


def check_finite(name, value):
    """Raise ValueError unless value is a finite number (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")


def make_example(prompt_ids, response_ids, vocab_size, logits_fn):
    """A toy (logits, labels) pair for a prompt followed by a response: labels
    hold IGNORE_INDEX on the prompt positions and the token ids on the
    response; ``logits_fn(position, token_ids)`` gives one row of
    ``vocab_size`` logits per position."""
    ids = list(prompt_ids) + list(response_ids)
    labels = [IGNORE_INDEX] * len(prompt_ids) + list(response_ids)
    logits = [list(logits_fn(t, ids)) for t in range(len(ids))]
    for row in logits:
        if len(row) != vocab_size:
            raise ValueError("logits_fn returned a row of the wrong size")
    return logits, labels
