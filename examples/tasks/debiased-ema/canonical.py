"""Exponential moving averages."""


def debiased_ema(values, beta):
    """The bias-corrected exponential moving average of ``values`` (a list of
    floats) with decay ``beta``: a list of floats, one per value.
    Raises ValueError unless 0 <= beta < 1."""
    if not 0 <= beta < 1:
        raise ValueError(f"beta must be in [0, 1), got {beta!r}")
    out = []
    m = 0.0
    for t, x in enumerate(values, start=1):
        # Algorithm 1: m_t = beta * m_{t-1} + (1 - beta) * x_t
        m = beta * m + (1 - beta) * x
        # Section 3: m_t / (1 - beta^t) removes the bias towards m_0 = 0.
        out.append(m / (1 - beta**t))
    return out
