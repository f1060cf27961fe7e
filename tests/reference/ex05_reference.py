"""Exercise 05-sampling-settings: an independent reference for warp and the step from logits.

It warps one row at a time in plain Python (math.exp, sorted with an explicit key) and runs the
step through exercise 01's reference trace, or exercise 04's reference at temperature 0. It
imports nothing from solutions/.
"""

from __future__ import annotations

import math

import numpy as np

from speckata.grading.trace import StepTrace
from tests.reference.ex01_reference import reference_trace
from tests.reference.ex04_reference import first_maximum, reference_greedy


def ranking(probs: list[float]) -> list[int]:
    """Token ids, most likely first; ties: the lower index first."""
    return sorted(range(len(probs)), key=lambda token: (-probs[token], token))


def keep(probs: list[float], kept: list[int]) -> list[float]:
    total = sum(probs[token] for token in kept)
    chosen = set(kept)
    return [probs[token] / total if token in chosen else 0.0 for token in range(len(probs))]


def warp_row(row, temperature: float, top_k, top_p) -> tuple[list[float], float]:
    """One warped row, and how close any top-p cumulative sum came to top_p (inf without top-p)."""
    row = [float(x) for x in row]
    if temperature == 0:
        probs = [0.0] * len(row)
        probs[first_maximum(row)] = 1.0
    else:
        top = max(row)
        weights = [0.0 if x == -math.inf else math.exp((x - top) / temperature) for x in row]
        probs = [w / sum(weights) for w in weights]
    order = ranking(probs)
    if top_k is not None:
        probs = keep(probs, order[:top_k])
    closest = math.inf
    if top_p is not None:
        cumulative, count = 0.0, len(order)
        for position, token in enumerate(order):
            cumulative += probs[token]
            closest = min(closest, abs(cumulative - top_p))
            if cumulative >= top_p:
                count = position + 1
                break
        probs = keep(probs, order[:count])
    return probs, closest


def reference_warp(logits, temperature=1.0, top_k=None, top_p=None) -> tuple[np.ndarray, float]:
    """warp's expected output and the smallest distance of a top-p cumulative sum to top_p."""
    logits = np.asarray(logits, dtype=np.float64)
    rows = logits.reshape(-1, logits.shape[-1])
    warped = [warp_row(row, temperature, top_k, top_p) for row in rows]
    probs = np.array([w for w, _ in warped], dtype=np.float64).reshape(logits.shape)
    return probs, min([closest for _, closest in warped], default=math.inf)


def reference_step(target_logits, draft_logits, draft, stream, temperature=1.0, top_k=None, top_p=None):
    """The expected tokens and draw count, with the warped rows and exercise 01's trace (or None)."""
    p, _ = reference_warp(target_logits, temperature, top_k, top_p)
    vocab = p.shape[-1]
    q, _ = reference_warp(np.asarray(draft_logits, dtype=np.float64).reshape(len(draft), vocab), temperature, top_k, top_p)
    if temperature == 0:
        tokens, _ = reference_greedy(p, q, draft)
        return tokens, 0, p, q, None
    trace: StepTrace = reference_trace(p, q, draft, stream)
    return trace.tokens, trace.draws, p, q, trace
