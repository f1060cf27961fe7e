"""Exercise 02-acceptance-rate: an independent reference for the acceptance rate α.

The reference computes α from its meaning, not from the min formula: the chance that a token the
draft proposes (drawn from q) survives the accept test u < p/q of exercise 01. It imports
nothing from solutions/. The suites draw their random distribution pairs from tests/shared/cases.py.
"""

from __future__ import annotations

import numpy as np


def acceptance_probability(p_row, q_row) -> float:
    """Σ over the tokens the draft can propose of q(x)·min(1, p(x)/q(x))."""
    total = 0.0
    for p_x, q_x in zip(np.asarray(p_row, dtype=float), np.asarray(q_row, dtype=float)):
        if q_x > 0:
            total += q_x * min(1.0, p_x / q_x)
    return total


def total_variation(p_row, q_row) -> float:
    """½·Σ|p − q|, summed in plain Python."""
    return 0.5 * sum(abs(a - b) for a, b in zip(np.asarray(p_row, dtype=float), np.asarray(q_row, dtype=float)))
