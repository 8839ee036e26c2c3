"""Example series for the tokenizer (NaN marks a missing observation)."""

import math

NAN = math.nan

# Monthly unit sales of one product over two years; two months were not recorded.
MONTHLY_SALES = [
    112.0, 118.0, 132.0, 129.0, 121.0, 135.0, 148.0, 148.0, 136.0, 119.0, NAN, 118.0,
    115.0, 126.0, 141.0, 135.0, 125.0, 149.0, 170.0, NAN, 158.0, 133.0, 114.0, 140.0,
]

# Daily demand of a slow-moving spare part: mostly zeros (intermittent demand).
INTERMITTENT = [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0, 0.0, 2.0, 0.0]

# Hourly temperature anomalies (degrees C), both signs, one sensor dropout.
TEMPERATURE = [-2.4, -3.1, -3.5, NAN, -1.2, 0.4, 2.6, 4.1, 5.0, 4.4, 2.2, -0.3]

# Next six months of MONTHLY_SALES (the label of a forecasting example).
MONTHLY_SALES_NEXT = [145.0, 150.0, 178.0, NAN, 183.0, 199.0]


def load_series():
    """dict name -> list of floats (fresh copies)."""
    return {
        "monthly_sales": list(MONTHLY_SALES),
        "intermittent": list(INTERMITTENT),
        "temperature": list(TEMPERATURE),
        "monthly_sales_next": list(MONTHLY_SALES_NEXT),
    }
