"""Configuration of the time series tokenizer (the Chronos-T5 defaults)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenizerConfig:
    """Vocabulary and sequence settings shared by the tokenizer and the model.

    n_tokens          size of the whole vocabulary, special tokens included
    n_special_tokens  how many ids at the start of the vocabulary are special
    pad_token_id      id of PAD (padding and missing values), below n_special_tokens
    eos_token_id      id of EOS (end of sequence), below n_special_tokens
    use_eos_token     whether sequences get an EOS token at their end
    model_type        "seq2seq" (encoder-decoder, e.g. T5) or "causal" (decoder only, e.g. GPT-2)
    context_length    the longest context the model reads (older values are dropped)
    prediction_length the length of a label (forecast horizon) sequence
    low_limit         the smallest bin center (in scaled units)
    high_limit        the largest bin center (in scaled units)

    Use dataclasses.replace(config, field=value) for a variant.
    """

    n_tokens: int = 4096
    n_special_tokens: int = 2
    pad_token_id: int = 0
    eos_token_id: int = 1
    use_eos_token: bool = True
    model_type: str = "seq2seq"
    context_length: int = 512
    prediction_length: int = 64
    low_limit: float = -15.0
    high_limit: float = 15.0

    def __post_init__(self):
        for name in ("n_tokens", "n_special_tokens", "context_length", "prediction_length"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name in ("pad_token_id", "eos_token_id"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.n_special_tokens:
                raise ValueError(f"{name} must be a special token id below {self.n_special_tokens}, got {value!r}")
        if self.pad_token_id == self.eos_token_id:
            raise ValueError("PAD and EOS must be different tokens")
        if self.n_tokens - self.n_special_tokens < 3:
            raise ValueError("the vocabulary needs at least three ids beyond the special tokens")
        if self.model_type not in ("seq2seq", "causal"):
            raise ValueError(f"model_type must be 'seq2seq' or 'causal', got {self.model_type!r}")
        if not float(self.low_limit) < float(self.high_limit):
            raise ValueError("low_limit must be below high_limit")
