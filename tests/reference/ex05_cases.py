"""Exercise 05-sampling-settings: generated cases for the suite, from a seeded numpy generator.

Each generator redraws until no decision is within 1e-9 of its boundary (a top-p cumulative sum
near top_p, a uniform near p/q or a CDF step), so rounding differences between a correct learner
and the reference can never change the expected answer.
"""

from __future__ import annotations

import numpy as np

from tests.reference.ex05_reference import reference_step, reference_warp

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
