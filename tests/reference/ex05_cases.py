"""Exercise 05-sampling-settings: generated cases for the suite, from a seeded numpy generator.

Each generator redraws until no decision is within 1e-9 of its boundary (a top-p cumulative sum
near top_p, a uniform near p/q or a CDF step), so rounding differences between a correct learner
and the reference can never change the expected answer.
"""

from __future__ import annotations

import numpy as np

from speckata import ReplayRNG
from speckata.grading import call_learner
from tests.reference.ex05_reference import reference_step, reference_warp
from tests.reference.ex05_report import CHAIN_NOTE

MARGIN = 1e-9


def generated_warp_case(gen: np.random.Generator):
    """1-D or 2-D logits and settings: temperature 0 (10%) or in [0.2, 3], top_k and top_p each half the time."""
    while True:
        vocab = int(gen.integers(1, 12))
        shape = (vocab,) if gen.random() < 0.5 else (int(gen.integers(1, 4)), vocab)
        logits = gen.normal(0.0, gen.uniform(0.5, 3.0), size=shape)
        settings = {"temperature": 0.0 if gen.random() < 0.1 else float(gen.uniform(0.2, 3.0))}
        if gen.random() < 0.5:
            settings["top_k"] = int(gen.integers(1, vocab + 2))
        if gen.random() < 0.5:
            settings["top_p"] = float(gen.uniform(0.05, 1.0))
        if reference_warp(logits, **settings)[1] > MARGIN:
            return logits, settings


def generated_step_case(gen: np.random.Generator, vocab: int):
    """Target and draft logits for γ in 0..4, a draft sampled from the warped draft, the uniforms a
    correct step uses, and the settings."""
    while True:
        gamma = int(gen.integers(0, 5))
        target = gen.normal(0, 2, size=(gamma + 1, vocab))
        drafts = 0.7 * target[:gamma] + gen.normal(0, 1, size=(gamma, vocab))
        settings = {"temperature": float(gen.choice([0.0, 0.5, 1.0, 1.7]))}
        if gen.random() < 0.5:
            settings["top_k"] = int(gen.integers(1, vocab + 1))
        if gen.random() < 0.5:
            settings["top_p"] = float(gen.uniform(0.3, 1.0))
        q, closest_q = reference_warp(drafts, **settings)
        _, closest_p = reference_warp(target, **settings)
        draft = [int(gen.choice(vocab, p=row)) for row in q]
        uniforms = gen.random(gamma + 1).tolist()
        *_, trace = reference_step(target, drafts, draft, uniforms + [0.5] * 3, **settings)
        margin = trace.margin() if trace is not None else np.inf
        if min(closest_p, closest_q, margin) > MARGIN:
            return target, drafts, draft, (uniforms[: trace.draws] if trace is not None else []), settings


# The statistical test's case (Task 6): drafts sampled from the warped draft, the first token counted.

STAT_TARGET = np.array([[2.0, 1.6, 1.0, 0.3, -0.2, -1.5], [0.0, 0.5, 1.0, 0.0, -1.0, 0.2]])
STAT_DRAFT = np.array([[1.0, 2.1, 0.4, 0.9, -0.5, 0.2]])
STAT_SETTINGS = {"temperature": 1.5, "top_k": 4}
STAT_RUNS = 1_500  # the margin gate: reference p = 0.73, every biased mutant p < 1e-10
STAT_SEED = 5050
STAT_ALPHA = 1e-3


def first_token_counts(step_function, runs: int, seed: int) -> np.ndarray:
    """Drafts sampled from the reference-warped draft (as a draft sampling with these settings would)."""
    gen = np.random.default_rng(seed)
    q, _ = reference_warp(STAT_DRAFT, **STAT_SETTINGS)
    drafts = gen.choice(q.shape[1], size=runs, p=q[0])
    uniforms = gen.random((runs, 2))
    counts = np.zeros(q.shape[1], dtype=np.int64)
    for token, stream in zip(drafts, uniforms):
        tokens = call_learner(step_function, STAT_TARGET, STAT_DRAFT, [int(token)], ReplayRNG(stream), **STAT_SETTINGS,
                              case="(statistical test)\n" + CHAIN_NOTE)
        counts[tokens[0]] += 1
    return counts
