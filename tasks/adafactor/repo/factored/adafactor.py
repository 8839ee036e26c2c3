"""Adafactor (Shazeer & Stern, "Adafactor: Adaptive Learning Rates with Sublinear
Memory Cost", ICML 2018)."""

import math

import numpy as np

from factored.linalg import as_parameter, rms
from factored.state import AdafactorState
