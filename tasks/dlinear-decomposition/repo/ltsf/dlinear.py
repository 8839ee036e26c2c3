"""DLinear: series decomposition plus two linear heads (Zeng et al., "Are Transformers Effective
for Time Series Forecasting?", AAAI 2023)."""

import numpy as np
