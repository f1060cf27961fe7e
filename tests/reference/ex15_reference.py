"""Exercise 15-multi-candidate: an independent reference that records its reasoning, and exact chances.

It imports neither solutions/ nor speckata's sampler. ``reference_trace`` walks the candidates of
one position as the exercise's rule says (both variants) and records the shared trace events of
speckata.grading.trace: one accept test per tried candidate (its position is the candidate's index)
and, when every candidate is rejected, one sample from the final target.

The exact chances are computed differently from the solution, so the two check each other:
``enumerated_acceptance`` lists every whole sequence of k candidates with its probability (the
solution recurses one candidate at a time), and ``iid_closed_form`` uses the fact that the i.i.d.
rule's chain of targets p_0, p_1, ... does not depend on which candidates were drawn.
"""

from __future__ import annotations

import itertools

import numpy as np

from speckata.grading.trace import ACCEPT, RESIDUAL, StepTrace
from tests.reference.ex01_reference import inverse_cdf

RESIDUAL_MASS_EPS = 1e-12


def updated_target(target: np.ndarray, draft: np.ndarray) -> np.ndarray:
    """The normalised max(p - q, 0); p itself when that has no mass (p and q agree)."""
    missing = np.clip(target - draft, 0.0, None)
    mass = float(missing.sum())
    return missing / mass if mass > RESIDUAL_MASS_EPS else target


def removed(draft: np.ndarray, token: int) -> np.ndarray:
    """``draft`` without ``token``, renormalised (left as zeros when nothing remains)."""
    kept = np.where(np.arange(draft.size) == token, 0.0, draft)
    mass = float(kept.sum())
    return kept / mass if mass > 0 else kept


def reference_trace(p, q, candidates, uniforms, without_replacement: bool) -> StepTrace:
    target = np.asarray(p, dtype=np.float64)
    draft = np.asarray(q, dtype=np.float64)
    stream = iter(uniforms)
    trace = StepTrace()
    for index, token in enumerate(int(c) for c in candidates):
        u = next(stream)
        ratio = target[token] / draft[token]
        if u < ratio:
            trace.accept(index, token, u, ratio)
            return trace
        trace.reject(index, token, u, ratio)
        target = updated_target(target, draft)
        if without_replacement:
            draft = removed(draft, token)
    u = next(stream)
    k = len(candidates)
    trace.sample(RESIDUAL, k, inverse_cdf(target, u), target / target.sum(),
                 f"p_{k}, the target after {k} rejection{'s' if k > 1 else ''}", u=u)
    return trace


def outcome(trace: StepTrace) -> tuple[int, int | None]:
    """(emitted token, index of the accepted candidate or None), as the exercise returns them."""
    accepted = [event.position for event in trace.events if event.kind == ACCEPT]
    return trace.tokens[0], (accepted[0] if accepted else None)


def sequences(q: np.ndarray, k: int, without_replacement: bool):
    """Every ordered sequence of k candidates q can draw, with its probability."""
    support = [int(x) for x in np.flatnonzero(q > 0)]
    orders = itertools.permutations(support, k) if without_replacement else itertools.product(support, repeat=k)
    for order in orders:
        chance, left = 1.0, q
        for token in order:
            chance *= left[token] / left.sum()  # summed afresh: 1 - q(x) would cancel when q(x) is near 1
            if without_replacement:
                left = np.where(np.arange(q.size) == token, 0.0, left)
        yield order, chance


def accepted_chance(p: np.ndarray, q: np.ndarray, order, without_replacement: bool) -> float:
    """P(one of the candidates in ``order`` is accepted), walking the rule along them."""
    target, draft = p, q
    still_rejected, accepted = 1.0, 0.0
    for token in order:
        keep = min(1.0, target[token] / draft[token])
        accepted += still_rejected * keep
        still_rejected *= 1.0 - keep
        target = updated_target(target, draft)
        if without_replacement:
            draft = removed(draft, token)
    return accepted


def enumerated_acceptance(p, q, k: int, without_replacement: bool) -> float:
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    return float(sum(chance * accepted_chance(p, q, order, without_replacement)
                     for order, chance in sequences(q, k, without_replacement)))


def iid_closed_form(p, q, k: int) -> float:
    """1 - Π_j (1 - α_j) with α_j = Σ min(p_j, q): in the i.i.d. rule p_j depends on j alone."""
    target, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    all_rejected = 1.0
    for _ in range(k):
        all_rejected *= 1.0 - float(np.minimum(target, q).sum())
        target = updated_target(target, q)
    return 1.0 - all_rejected


def draw_candidates(gen: np.random.Generator, q: np.ndarray, k: int, without_replacement: bool) -> list[int]:
    """k candidates from q as a draft would draw them: i.i.d., or one at a time from what is left."""
    left = np.asarray(q, dtype=np.float64)
    tokens = []
    for _ in range(k):
        token = inverse_cdf(left, float(gen.random()))
        tokens.append(token)
        if without_replacement:
            left = removed(left, token)
    return tokens
