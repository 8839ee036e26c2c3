"""A small Chronos-style time series tokenizer: the tokenizer configuration
(``config``), NaN-aware helpers for series with missing values (``series``),
example series (``data``) and the tokenizer itself (``tokenizer``)."""
