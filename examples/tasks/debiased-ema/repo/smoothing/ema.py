"""Exponential moving averages."""


def debiased_ema(values, beta):
    """The bias-corrected exponential moving average of ``values`` (a list of
    floats) with decay ``beta``: a list of floats, one per value.
    Raises ValueError unless 0 <= beta < 1."""
    raise NotImplementedError
