"""The AAA algorithm for rational approximation (Nakatsukasa, Sete and
Trefethen, SIAM Journal on Scientific Computing 2018).

Use the helper in ``rational.linalg``.
"""

import numpy as np
