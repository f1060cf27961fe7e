"""Exercise 22-eagle-head: the chi-square test of Task 5's sampled output (exercise 28's suite reuses it).

A tiny GPT over 3 tokens, sharpened, and a random head; whole sequences of 3 new tokens counted
against their exact law under the target. The settings are the suite's docstring's.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import torch

from speckata.grading import call_learner
from tests.reference.ex22_cases import random_head, sequence_law, tiny_gpt
from tests.shared.statistics import pooled_chi_square

STAT_RUNS = 600
STAT_SEED = 20261202
STAT_LENGTH = 3
STAT_GAMMA = 2
STAT_ALPHA = 1e-3
STAT_PROMPT = [0]


@lru_cache(maxsize=1)
def stat_models():
    return tiny_gpt(22, vocab=3, sharpness=4.0), random_head(16, 23)


def sequence_chi_square(generate, runs: int = STAT_RUNS, seed: int = STAT_SEED):
    target, head = stat_models()
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, target, head, STAT_PROMPT, STAT_LENGTH, STAT_GAMMA, generator, case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    law = sequence_law(target, STAT_PROMPT, STAT_LENGTH)
    statistic, df, pvalue = pooled_chi_square(counts, law, runs)
    return statistic, pvalue, counts, df, law
