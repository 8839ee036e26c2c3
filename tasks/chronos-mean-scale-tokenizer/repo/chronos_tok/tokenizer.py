"""Mean scaling and uniform binning of time series into tokens (Ansari et al.,
"Chronos: Learning the Language of Time Series", TMLR 2024)."""
