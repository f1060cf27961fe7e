"""Exercise 10-speculative-generate's statistical test: whole sequences counted against the target chain.

Task 8 of tests/test_10_speculative_generate.py runs it on the learner's decoder; the margin gate
(tests/maintainer/chi_square_checks.py) runs it on the reference and a biased mutant.
"""

from __future__ import annotations

from collections import Counter

import torch

from speckata.grading import call_learner
from speckata.models.markov import MarkovModel, random_markov_model
from tests.shared.statistics import pooled_chi_square

STAT_RUNS = 500
STAT_SEED = 20261130
STAT_LENGTH = 3  # new tokens per run: 27 possible sequences over 3 tokens
STAT_GAMMA = 2
STAT_ALPHA = 1e-3


def stat_chains() -> tuple[MarkovModel, MarkovModel]:
    return random_markov_model(3, 2, seed=1, sharpness=1.5), random_markov_model(3, 2, seed=2, sharpness=1.5)


def sequence_chi_square(generate, runs: int = STAT_RUNS, seed: int = STAT_SEED) -> tuple[float, float, Counter, int]:
    """The statistic, its p-value, the counts of each sequence and the degrees of freedom."""
    target, draft = stat_chains()
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, target, draft, [0], STAT_LENGTH, STAT_GAMMA, generator, case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    law = {sequence: target.sequence_probability([0], sequence) for sequence in target.all_continuations(STAT_LENGTH)}
    statistic, df, pvalue = pooled_chi_square(counts, law, runs)
    return statistic, pvalue, counts, df
