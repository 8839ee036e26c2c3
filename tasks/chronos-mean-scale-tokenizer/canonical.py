"""Mean scaling and uniform binning of time series into tokens (Ansari et al.,
"Chronos: Learning the Language of Time Series", TMLR 2024)."""

import bisect
import math

from chronos_tok.series import check_series, is_missing, nan_mean_abs, observed_mask

# The outermost bin boundaries of the reference implementation: every finite
# scaled value lies between them in practice, but a value below -1e20 falls in
# a bucket of its own (see quantize).
OUTER_BOUNDARY = 1e20


def _check_scale(scale):
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a positive finite number, got {scale!r}")
    return float(scale)


def mean_scale(context):
    """The scale s of a context: the mean absolute value of its observed values."""
    values = check_series(context, "context")
    # Sec. 3.1, Eq. (1): mean scaling, s = (1/C) sum_i |x_i| (location m = 0). Missing
    # values (NaN) are left out of the sum and of the count C (the paper does not say;
    # the reference takes nansum(|x| * mask) / nansum(mask)).
    s = nan_mean_abs(values)
    # Left out by the paper: a context of zeros, or with no observed value at all
    # (s = 0 or NaN), would make x / s undefined; the reference falls back to s = 1.
    if not s > 0.0:
        return 1.0
    return s


def uniform_bins(config):
    """(centers, edges): the bin centers and the C - 1 edges between neighbouring bins."""
    # Vocabulary layout of the reference (not in the paper): of the n_tokens ids the
    # first n_special_tokens are special (PAD, EOS), the next one is the bucket of
    # values below the outer boundary, and the remaining C = n_tokens - n_special - 1
    # are the bins. The paper only says "B bins plus PAD and EOS".
    num_bins = config.n_tokens - config.n_special_tokens - 1
    low = float(config.low_limit)
    high = float(config.high_limit)
    # Sec. 3.1, uniform binning: centers c_1 < ... < c_B evenly spaced over
    # [low, high], both limits included (linspace).
    step = (high - low) / (num_bins - 1)
    centers = [low + j * step for j in range(num_bins)]
    # Sec. 3.1: the edges b_i lie between c_i and c_{i+1}; uniform binning puts them
    # halfway, b_i = (c_i + c_{i+1}) / 2.
    edges = [(centers[j] + centers[j + 1]) / 2.0 for j in range(num_bins - 1)]
    return centers, edges


def quantize(values, scale, config):
    """Token ids of values / scale; PAD for a missing value."""
    values = check_series(values, "values")
    scale = _check_scale(scale)
    _, edges = uniform_bins(config)
    boundaries = [-OUTER_BOUNDARY] + edges + [OUTER_BOUNDARY]
    ids = []
    for x in values:
        if is_missing(x):
            # Sec. 3.1: missing values are replaced by the PAD token.
            ids.append(config.pad_token_id)
            continue
        # Eq. (2): q(x) = j when b_{j-1} <= x < b_j, bins closed on the left and open
        # on the right, so a value exactly on an edge goes to the upper bin
        # (bisect_right, as the reference's bucketize(right=True)).
        bucket = bisect.bisect_right(boundaries, x / scale)
        # The bucket index is shifted past the special tokens: bucket 0 (below -1e20)
        # is id n_special, the bin of center j (0-based) is id n_special + 1 + j; a
        # value at or above +1e20 would be one past the last id and is clamped to it.
        ids.append(min(bucket + config.n_special_tokens, config.n_tokens - 1))
    return ids


def context_input_transform(context, config):
    """(token_ids, attention_mask, scale) of a context series."""
    context = check_series(context, "context")
    # The model reads at most context_length observations (512 for the Chronos
    # models): older values are dropped *before* the scale is computed, so the scale
    # is that of the window the model sees (a detail of the reference).
    context = context[-config.context_length:]
    scale = mean_scale(context)
    token_ids = quantize(context, scale, config)
    # The attention mask is False exactly on the PAD (missing) positions.
    attention_mask = observed_mask(context)
    # Sec. 3.1: EOS ends a sequence. The reference appends it to the context only for
    # an encoder-decoder model (the encoder input); a causal model continues the
    # context directly, so an EOS there would sit in the middle of its sequence.
    if config.use_eos_token and config.model_type == "seq2seq":
        token_ids.append(config.eos_token_id)
        attention_mask.append(True)
    return token_ids, attention_mask, scale


def label_input_transform(label, scale, config):
    """(token_ids, attention_mask) of a label series, scaled with the context's scale."""
    label = check_series(label, "label")
    if len(label) != config.prediction_length:
        raise ValueError(f"a label has prediction_length = {config.prediction_length} values, got {len(label)}")
    # Sec. 3.1: the forecast horizon is tokenized with the scale of its context, never
    # with a scale of its own (it is unknown at prediction time).
    token_ids = quantize(label, scale, config)
    attention_mask = observed_mask(label)
    # A label always ends with EOS when use_eos_token is set, whatever the model type.
    if config.use_eos_token:
        token_ids.append(config.eos_token_id)
        attention_mask.append(True)
    return token_ids, attention_mask


def output_transform(token_ids, scale, config):
    """Values of sampled token ids: the center of each id's bin times the scale."""
    scale = _check_scale(scale)
    centers, _ = uniform_bins(config)
    values = []
    for token in token_ids:
        # Eq. (3): d(j) = c_j, then x = d(j) * s undoes the mean scaling. The bin of
        # center j has id n_special + 1 + j; ids outside the bins (the special tokens,
        # the bucket below -1e20, ids past the vocabulary) are clamped to the first or
        # the last center, as the reference does.
        j = min(max(token - config.n_special_tokens - 1, 0), len(centers) - 1)
        values.append(centers[j] * scale)
    return values
