"""Exercise 17-typical-acceptance's worked example (P, Q) and the bad calls of typical_output_distribution (task 7).

Each is (positional arguments, keyword arguments, the phrases the ValueError must mention, the
problem in words), around the worked example's p and q.
"""

from __future__ import annotations

import numpy as np

# The worked example of the exercise text and the theory page: τ = min(0.09, 0.3·e^−H) = 0.09.
P = [0.7, 0.2, 0.06, 0.04]
Q = [0.25, 0.25, 0.25, 0.25]

BAD_DISTRIBUTION_CALLS = {
    "unknown-on-reject": ((P, Q, "argmax"), {}, ("on_reject",), "on_reject 'argmax'"),
    "on-reject-in-capitals": ((P, Q, "Greedy"), {}, ("on_reject",), "on_reject 'Greedy' (case-sensitive)"),
    "different-lengths": ((P, [0.5, 0.5], "greedy"), {}, ("shape",), "p with 4 tokens and q with 2"),
    "stacked-rows": (([P, P], [Q, Q], "greedy"), {}, ("shape",), "2-D rows (one position at a time)"),
    "empty-rows": (([], [], "greedy"), {}, ("shape",), "empty rows"),
    "negative-probability": (([0.8, 0.2, 0.06, -0.06], Q, "greedy"), {}, ("negative",), "p with a negative entry"),
    "nan-probability": ((P, [np.nan, 0.5, 0.25, 0.25], "sample"), {}, ("NaN",), "a NaN in q"),
    "row-summing-to-1.1": ((P, [0.35, 0.25, 0.25, 0.25], "greedy"), {}, ("sum to 1",), "q summing to 1.1"),
    "negative-epsilon": ((P, Q, "greedy"), {"epsilon": -0.1}, ("epsilon",), "epsilon = -0.1"),
    "nan-delta": ((P, Q, "greedy"), {"delta": float("nan")}, ("delta",), "delta = nan"),
    "infinite-delta": ((P, Q, "greedy"), {"delta": float("inf")}, ("delta",), "delta = inf"),
    "epsilon-as-text": ((P, Q, "greedy"), {"epsilon": "0.09"}, ("epsilon",), "epsilon = '0.09' (a string)"),
}
