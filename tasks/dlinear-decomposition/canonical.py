"""DLinear: series decomposition plus two linear heads (Zeng et al., "Are Transformers Effective
for Time Series Forecasting?", AAAI 2023)."""

import numpy as np

from ltsf.data import as_batch
from ltsf.layers import linear


def _check_kernel(kernel_size):
    if isinstance(kernel_size, bool) or not isinstance(kernel_size, (int, np.integer)) or kernel_size < 1 \
            or kernel_size % 2 == 0:
        raise ValueError(f"kernel_size must be a positive odd integer, got {kernel_size!r}")


def moving_average(x, kernel_size=25):
    """Trend: centred moving average over time, the ends padded by repeating the first and last values."""
    x = as_batch(x)
    _check_kernel(kernel_size)
    # The paper leaves the padding out: the code (Autoformer's series_decomp, reused by DLinear) pads
    # (kernel_size - 1) // 2 copies of the first and of the last time step, so the average has the
    # input's length and the ends are not pulled towards zero.
    pad = (kernel_size - 1) // 2
    front = np.repeat(x[:, :1, :], pad, axis=1)
    end = np.repeat(x[:, -1:, :], pad, axis=1)
    padded = np.concatenate([front, x, end], axis=1)
    # Sec. 4 (DLinear): a moving average kernel (average pooling of stride 1) extracts the trend.
    windows = np.lib.stride_tricks.sliding_window_view(padded, kernel_size, axis=1)
    return windows.mean(axis=-1)


def series_decomposition(x, kernel_size=25):
    """(seasonal, trend): the remainder x - trend and the moving-average trend."""
    x = as_batch(x)
    trend = moving_average(x, kernel_size)
    # Sec. 4: the remainder after removing the trend is the seasonal component.
    return x - trend, trend


def _head(component, weight, bias):
    # component: [batch, length, channels] -> [batch, channels, length]; the layer maps the time axis.
    z = np.swapaxes(component, 1, 2)
    weight = np.asarray(weight, dtype=np.float64)
    bias = np.asarray(bias, dtype=np.float64)
    channels = z.shape[1]
    if weight.ndim == 2:
        # One layer shared by every channel (the default, individual=False).
        out = linear(z, weight, bias)
    elif weight.ndim == 3:
        # individual=True: one layer per channel.
        if weight.shape[0] != channels or bias.ndim != 2 or bias.shape[0] != channels:
            raise ValueError(f"per-channel weight {weight.shape} / bias {bias.shape} do not match {channels} channels")
        out = np.stack([linear(z[:, c, :], weight[c], bias[c]) for c in range(channels)], axis=1)
    else:
        raise ValueError(f"weight must have 2 or 3 dimensions, got shape {weight.shape}")
    return np.swapaxes(out, 1, 2)  # [batch, horizon, channels]


def dlinear_forecast(x, seasonal_weight, seasonal_bias, trend_weight, trend_bias, kernel_size=25):
    """DLinear forecast [batch, horizon, channels] from an input window [batch, length, channels]."""
    x = as_batch(x)
    seasonal, trend = series_decomposition(x, kernel_size)
    # Sec. 4: two one-layer linear networks, one per component, applied along time; the forecast
    # is the sum of the two outputs, X_hat = H_s + H_t.
    return _head(seasonal, seasonal_weight, seasonal_bias) + _head(trend, trend_weight, trend_bias)
