"""Exercise 15-multi-candidate's inputs: the worked example's p and q, and the bad inputs of each task.

Used by tests/test_15_multi_candidate.py (tasks 1-3); each bad input is (arguments..., the phrases the
ValueError must mention, the problem in words).
"""

from __future__ import annotations

import numpy as np

# The worked example of the exercise text and the theory page (position 0 of exercise 01's).
P, Q = [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]

# Task 1: verify_candidates
BAD_INPUTS = {
    "p-with-two-rows": ([P, P], Q, [0], ("shape",), "p of shape (2, 3)"),
    "q-with-another-vocabulary": (P, [0.5, 0.5], [0], ("shape",), "q with 2 entries where p has 3"),
    "empty-vocabulary": ([], [], [0], ("shape",), "p and q of shape (0,)"),
    "no-candidates": (P, Q, [], ("at least one candidate",), "an empty list of candidates (k = 0)"),
    "candidates-in-two-dimensions": (P, Q, [[0, 1]], ("shape",), "candidates of shape (1, 2)"),
    "candidate-past-the-vocabulary": (P, Q, [0, 3], ("out of range",), "candidate 3 in a vocabulary of 3"),
    "negative-candidate": (P, Q, [-1], ("out of range",), "candidate -1"),
    "fractional-candidate": (P, Q, [2.5], ("integer",), "candidate 2.5"),
    "candidate-q-could-not-draw": (P, [0.5, 0.5, 0.0], [0, 2], ("zero probability",), "q(2) = 0 for candidate 2"),
    "negative-probability": ([0.6, 0.5, -0.1], Q, [0], ("negative",), "p(2) = -0.1"),
    "nan-probability": (P, [0.5, np.nan, 0.2], [0], ("NaN",), "a NaN in q"),
    "row-summing-to-1.1": (P, [0.5, 0.4, 0.2], [0], ("sum to 1",), "q summing to 1.1"),
    "row-off-by-2e-6": ([0.2, 0.5, 0.300002], Q, [0], ("sum to 1",), "p summing to 1.000002"),
}

# Task 2: verify_candidates_without_replacement
WITHOUT_REPLACEMENT_BAD_INPUTS = {
    **BAD_INPUTS,
    "duplicate-candidate": (P, Q, [0, 2, 0], ("duplicate",), "candidate 0 twice, though drawn without replacement"),
}

# Task 3: acceptance_probability
PROBABILITY_BAD_INPUTS = {
    "no-candidates": (P, Q, 0, False, ("at least one candidate",), "k = 0"),
    "fractional-k": (P, Q, 2.5, False, ("integer",), "k = 2.5"),
    "more-candidates-than-tokens": (P, [0.5, 0.5, 0.0], 3, True, ("more candidates",),
                                    "k = 3 without replacement where q can propose 2 tokens"),
    "q-with-another-vocabulary": (P, [0.5, 0.5], 1, False, ("shape",), "q with 2 entries where p has 3"),
    "nan-probability": ([np.nan, 0.5, 0.5], Q, 1, True, ("NaN",), "a NaN in p"),
    "row-summing-to-1.1": (P, [0.5, 0.4, 0.2], 2, False, ("sum to 1",), "q summing to 1.1"),
}
