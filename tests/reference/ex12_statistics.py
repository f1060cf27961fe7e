"""Exercise 12-cross-tokenizer's first statistical test: verify_proposal's first token counted against p[0].

Task 1 of tests/test_12_cross_tokenizer.py runs it on the learner's function; the margin gate
(tests/maintainer/chi_square_checks.py) runs it on the reference and a biased mutant.
"""

from __future__ import annotations

from collections import Counter

import torch

from speckata.grading import call_learner
from tests.shared.statistics import chi_square_sf

STAT_P0 = torch.tensor([[0.1, 0.3, 0.15, 0.25, 0.2], [0.2] * 5], dtype=torch.float64)
STAT_RUNS, STAT_SEED, STAT_ALPHA = 20_000, 20261201, 1e-3


def first_token_chi_square(verify, runs=STAT_RUNS, seed=STAT_SEED):
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        counts[call_learner(verify, STAT_P0, [1], generator, case="(statistical test)")[0]] += 1
    expected = runs * STAT_P0[0]
    statistic = float(sum((counts[t] - float(expected[t])) ** 2 / float(expected[t]) for t in range(5)))
    return statistic, chi_square_sf(statistic, 4), counts
