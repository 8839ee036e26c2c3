"""Long-term time-series forecasting with linear models: data helpers, layers and DLinear."""
