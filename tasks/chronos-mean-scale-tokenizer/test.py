import dataclasses
import math
import unittest

from recode_check import check, outcome

from chronos_tok.config import TokenizerConfig
from chronos_tok.data import load_series
from chronos_tok.series import nan_mean_abs
from chronos_tok.tokenizer import (
    context_input_transform,
    label_input_transform,
    mean_scale,
    output_transform,
    quantize,
    uniform_bins,
)

NAN = math.nan
SERIES = {}
DEFAULT = TokenizerConfig()
# 8 ids: PAD 0, EOS 1, id 2 below -1e20, five bins with centers -1, -0.5, 0, 0.5, 1 (ids 3..7)
SMALL = TokenizerConfig(n_tokens=8, n_special_tokens=2, low_limit=-1.0, high_limit=1.0,
                        context_length=6, prediction_length=3)


def setUpModule():
    SERIES.update(load_series())


def r(xs, digits=12):
    return [round(x, digits) for x in xs]


class TestMeanScale(unittest.TestCase):
    def test_mean_absolute_value(self):
        check(self, "scale_temperature_head", mean_scale([-2.4, -3.1, -3.5, 1.0]), rtol=1e-12)
        check(self, "scale_intermittent", mean_scale(SERIES["intermittent"]), rtol=1e-12)
        check(self, "scale_ints", mean_scale([3, -1, 2]), rtol=1e-12)

    def test_missing_values_skipped(self):
        # 22 of the 24 months are observed: NaN counts neither in the sum nor in the count
        check(self, "scale_monthly", mean_scale(SERIES["monthly_sales"]), rtol=1e-12)
        check(self, "scale_temperature", mean_scale(SERIES["temperature"]), rtol=1e-12)

    def test_fallback_and_errors(self):
        check(self, "scale_fallback", [mean_scale([0.0, 0.0, 0.0]), mean_scale([NAN, NAN]), mean_scale([]),
                                       mean_scale([NAN, 0.0, NAN])])
        check(self, "scale_tiny", mean_scale([1e-30, -3e-30, NAN]), rtol=1e-12)
        contexts = ([2.0, -4.0], [1.0, math.inf], [NAN, 3, 5.0], [1.0, "2"], [True, 1.0], [-0.5, NAN])
        check(self, "scale_mixed", [outcome(mean_scale, c) for c in contexts], rtol=1e-12)


class TestUniformBins(unittest.TestCase):
    def test_small_vocabulary(self):
        centers, edges = uniform_bins(SMALL)
        check(self, "bins_small", [centers, edges], rtol=1e-12, atol=1e-15)

    def test_default_vocabulary(self):
        centers, edges = uniform_bins(DEFAULT)
        self.assertEqual(len(edges), len(centers) - 1)
        check(self, "bins_default_count", [len(centers), len(edges)])
        summary = [centers[:3], centers[2045:2048], centers[-3:], edges[:2], edges[-2:]]
        check(self, "bins_default_summary", summary, rtol=1e-12, atol=1e-12)

    def test_asymmetric_limits(self):
        config = TokenizerConfig(n_tokens=20, n_special_tokens=3, pad_token_id=2, eos_token_id=0,
                                 low_limit=-2.0, high_limit=6.0)
        centers, edges = uniform_bins(config)
        check(self, "bins_asym", [centers, edges], rtol=1e-12, atol=1e-15)


class TestQuantize(unittest.TestCase):
    def test_edges_right_open(self):
        values = [-1.3, -1.0, -0.75, -0.7499, -0.2501, -0.25, 0.0, 0.25, 0.3, 0.7499, 0.75, 1.0, 5.0]
        check(self, "ids_small_edges", quantize(values, 1.0, SMALL))

    def test_scale_and_missing(self):
        # divided by the scale 2 first: -0.8, -0.3, -0.25, nan, 0.2, 0.5, 1.5
        check(self, "ids_small_scaled", quantize([-1.6, -0.6, -0.5, NAN, 0.4, 1.0, 3.0], 2.0, SMALL))
        config = TokenizerConfig(n_tokens=10, n_special_tokens=3, pad_token_id=2, eos_token_id=0,
                                 low_limit=-1.0, high_limit=1.0)
        check(self, "ids_custom_pad", quantize([NAN, -1.0, -0.2, 0.05, 0.2, 0.35, 1.0, NAN], 1.0, config))

    def test_outer_boundaries(self):
        check(self, "ids_outer", quantize([-1e21, -1e20, -9e19, 9e19, 1e20, 1e21], 1.0, SMALL))
        check(self, "ids_outer_default", quantize([-2e21, -50.0, 50.0, 3e20], 1.0, DEFAULT))

    def test_default_roundtrip_of_centers(self):
        centers, _ = uniform_bins(DEFAULT)
        ids = quantize(centers, 1.0, DEFAULT)
        self.assertEqual(ids, list(range(3, 4096)))
        check(self, "ids_centers_default", ids[::401] + ids[-2:])
        scaled = quantize([c * 3.5 for c in centers[::97]], 3.5, DEFAULT)
        check(self, "ids_centers_scaled", scaled)

    def test_errors(self):
        check(self, "ids_scale_mixed", [outcome(quantize, [1.0], scale, SMALL)
                                        for scale in (0.5, 0.0, -1.0, 3.0, math.inf, NAN, 1.6, True)])
        check(self, "ids_infinite_value", [outcome(quantize, [1.0, -0.4], 1.0, SMALL), outcome(quantize, [1.0, -math.inf], 1.0, SMALL),
                                           outcome(quantize, [NAN, 0.6], 1.0, SMALL)])
        check(self, "ids_empty", quantize([], 0.5, SMALL))


class TestContextInputTransform(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.monthly = SERIES["monthly_sales"]
        cls.temperature = SERIES["temperature"]

    def test_seq2seq_appends_eos(self):
        ids, mask, scale = context_input_transform(self.monthly, DEFAULT)
        self.assertEqual(len(ids), len(self.monthly) + 1)
        check(self, "ctx_monthly_ids", ids)
        check(self, "ctx_monthly_mask", mask)
        check(self, "ctx_monthly_scale", scale, rtol=1e-12)
        ids, mask, scale = context_input_transform(self.temperature, SMALL)
        check(self, "ctx_temperature_small", [ids, mask, round(scale, 12)], rtol=1e-12)

    def test_causal_and_no_eos(self):
        causal = dataclasses.replace(DEFAULT, model_type="causal")
        ids, mask, scale = context_input_transform(self.temperature, causal)
        check(self, "ctx_causal", [ids, mask, round(scale, 12)], rtol=1e-12)
        no_eos = dataclasses.replace(DEFAULT, use_eos_token=False)
        ids, mask, _ = context_input_transform(self.monthly, no_eos)
        check(self, "ctx_no_eos", [ids[-3:], mask[-3:], len(ids)])

    def test_truncation_before_scaling(self):
        # only the last six values are read, and they alone set the scale
        context = [900.0, -700.0, 2.0, 1.0, NAN, -0.5, 0.5, 1.5]
        ids, mask, scale = context_input_transform(context, SMALL)
        check(self, "ctx_truncated", [ids, mask, scale], rtol=1e-12)
        short = [0.4, -0.2]
        check(self, "ctx_short", list(context_input_transform(short, SMALL)), rtol=1e-12)

    def test_degenerate_contexts(self):
        check(self, "ctx_zeros", list(context_input_transform([0.0, 0.0, 0.0, 0.0], DEFAULT)))
        check(self, "ctx_all_missing", list(context_input_transform([NAN, NAN, NAN], SMALL)))
        check(self, "ctx_empty", list(context_input_transform([], SMALL)))
        check(self, "ctx_intermittent", list(context_input_transform(SERIES["intermittent"], SMALL)), rtol=1e-12)
        check(self, "ctx_infinite", [outcome(context_input_transform, [1.0, 0.5], SMALL),
                                     outcome(context_input_transform, [1.0, math.inf], SMALL),
                                     outcome(context_input_transform, [0.3, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], SMALL),
                                     # the whole series is checked, also the values that are dropped
                                     outcome(context_input_transform, [math.inf, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], SMALL),
                                     outcome(context_input_transform, [-2.0, NAN, 0.25], SMALL)], rtol=1e-12)


class TestLabelInputTransform(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.config = dataclasses.replace(DEFAULT, prediction_length=6)
        cls.scale = nan_mean_abs(SERIES["monthly_sales"])  # the scale of the context
        cls.label = SERIES["monthly_sales_next"]

    def test_context_scale_and_eos(self):
        ids, mask = label_input_transform(self.label, self.scale, self.config)
        check(self, "label_monthly", [ids, mask])
        check(self, "label_small", list(label_input_transform([-0.9, NAN, 0.7], 0.5, SMALL)))

    def test_eos_for_every_model_type(self):
        causal = dataclasses.replace(self.config, model_type="causal")
        check(self, "label_causal", list(label_input_transform(self.label, self.scale, causal)))
        no_eos = dataclasses.replace(SMALL, use_eos_token=False)
        check(self, "label_no_eos", list(label_input_transform([0.3, -0.3, 0.9], 1.0, no_eos)))

    def test_errors(self):
        check(self, "label_wrong_length", [outcome(label_input_transform, self.label[::-1], self.scale, self.config),
                                           outcome(label_input_transform, self.label[:5], self.scale, self.config),
                                           outcome(label_input_transform, self.label + [150.0], self.scale, self.config),
                                           outcome(label_input_transform, self.label[1:] + [NAN], self.scale, self.config)])
        check(self, "label_scale_mixed", [outcome(label_input_transform, self.label, scale, self.config)
                                          for scale in (2.0 * self.scale, 0.0, -2.0, 7.5, NAN, 0.5 * self.scale)])
        check(self, "label_scale_one", list(label_input_transform([2.0, -0.25, 0.25], 1, SMALL)))


class TestOutputTransform(unittest.TestCase):
    def test_bin_centers_times_scale(self):
        check(self, "decode_small", output_transform([3, 4, 5, 6, 7, 6], 2.0, SMALL), rtol=1e-12, atol=1e-15)
        # the tokens of the monthly sales context (PAD for the two missing months)
        ids = [2164, 2170, 2185, 2181, 2173, 2188, 2201, 2201, 2189, 2171, 0, 2170,
               2167, 2178, 2194, 2188, 2177, 2202, 2224, 0, 2211, 2186, 2166, 2193]
        scale = nan_mean_abs(SERIES["monthly_sales"])
        decoded = output_transform(ids, scale, DEFAULT)
        check(self, "decode_monthly", r(decoded, 9), rtol=1e-10, atol=1e-12)
        half_width = 15.0 / 4092 * scale
        for x, y in zip(SERIES["monthly_sales"], decoded):
            if not math.isnan(x):
                self.assertLessEqual(abs(x - y), half_width + 1e-9)

    def test_clamped_ids(self):
        # specials, the bucket below -1e20 and negative ids decode to the first center; ids past the vocabulary to the last
        check(self, "decode_clamp", output_transform([0, 1, 2, -5, 8, 100], 1.0, SMALL), rtol=1e-12)
        check(self, "decode_default_ends", output_transform([2, 3, 2049, 4095, 5000], 0.5, DEFAULT), rtol=1e-12, atol=1e-15)

    def test_sample_paths_and_errors(self):
        config = dataclasses.replace(DEFAULT, prediction_length=4)
        paths = [[2050, 2100, 2080, 1990], [2048, 1, 2049, 2200]]
        check(self, "decode_paths", [r(output_transform(p, 12.5, config)) for p in paths], rtol=1e-10, atol=1e-12)
        check(self, "decode_scale_mixed", [outcome(output_transform, [3], scale, SMALL) for scale in (2.5, 0.0, -1.0, 0.1, math.inf, 4)],
              rtol=1e-12, atol=1e-15)
