"""Exercise 27-adaptive-draft-length: the chi-square of whole sequences, with the rules on (Tasks 7 and 9).

Order-1 chains over 3 tokens, the draft much peakier than the target (exercise 25's); three rows
of different prompts decoded together; each row's 27 sequences of 3 new tokens counted over 1200
batched runs (600 with probes) from one seeded generator and tested against their exact
probabilities under the target chain (Pearson's chi-square, sequences expected fewer than 5 times
pooled).
"""

from __future__ import annotations

from collections import Counter

import torch

from speckata.grading import GradingFailure, call_learner
from speckata.models.markov import random_markov_model
from tests.shared.statistics import pooled_chi_square

STAT_RUNS = 1200
STAT_SEED = 20261228
STAT_PROMPTS = [[0], [1, 2], [2, 0, 1]]
STAT_LENGTH = 3
STAT_ALPHA = 1e-3
STAT_RULES = {"threshold": 0.3, "costs": ([[10.0] * 3, [10.0, 10.5, 11.0], [10.0, 11.0, 16.0]], [0.5] * 3, [1, 2, 3]),
              "initial_alpha": 0.6}
# Drafting pays only above alpha 0.45 and the estimate starts at 0.1: round 1 is plain, round 2 a probe.
PROBE_STAT_RULES = {"costs": ([[10.0, 14.0, 18.0]] * 3, [0.5] * 3, [1, 2, 3]), "initial_alpha": 0.1, "probe_every": 1}
PROBE_STAT_RUNS = 600  # its biased mutant scores chi-square 1,318 on these runs (2,360 on 1000): power 1.0000


def stat_chains():
    return random_markov_model(3, 1, seed=3, sharpness=1.0), random_markov_model(3, 1, seed=4, sharpness=3.0)


def row_chi_squares(generate, rules: dict = STAT_RULES, runs: int = STAT_RUNS, seed: int = STAT_SEED):
    """Per row: (statistic, degrees of freedom, p-value, counts)."""
    target, draft = stat_chains()
    generator = torch.Generator().manual_seed(seed)
    counts = [Counter() for _ in STAT_PROMPTS]
    for _ in range(runs):
        result = call_learner(generate, target, draft, [list(p) for p in STAT_PROMPTS], STAT_LENGTH, 2, generator,
                              case="(statistical test)", **rules)
        for b, row in enumerate(result.tokens):
            counts[b][tuple(row)] += 1
    tests = []
    for prompt, row_counts in zip(STAT_PROMPTS, counts):
        law = {s: target.sequence_probability(prompt, s) for s in target.all_continuations(STAT_LENGTH)}
        tests.append((*pooled_chi_square(row_counts, law, runs), row_counts))
    return tests


def smallest_pvalue(generate, rules: dict = STAT_RULES, runs: int = STAT_RUNS) -> float:
    """The smallest of the rows' p-values (the margin gate's statistic)."""
    return min(pvalue for _, _, pvalue, _ in row_chi_squares(generate, rules, runs))


def check_rows(tests, rules: dict, causes: str) -> None:
    """Fail at the first row whose p-value is below STAT_ALPHA, with its statistic and the likely causes."""
    for b, (statistic, df, pvalue, counts) in enumerate(tests):
        if pvalue < STAT_ALPHA:
            raise GradingFailure(
                f"Row {b}'s sequences (prompt {STAT_PROMPTS[b]}) are not distributed as the target's own sampling.\n"
                f"  runs: {sum(counts.values())}, {STAT_LENGTH} new tokens per row, rules {rules}\n"
                f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n{causes}")
