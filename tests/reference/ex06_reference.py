"""Exercise 06-exactness-proof: an independent reference, and simulations of the two rules.

The reference enumerates the paths one proposal at a time (propose x, accept or reject, replace)
instead of using the min formula, and imports nothing from solutions/. The simulations run the
mechanisms themselves: exercise 01's reference trace for "exact", a direct loop for the
shortcut; the suite compares their frequencies with the learner's distribution.
"""

from __future__ import annotations

import numpy as np

from tests.reference.ex01_reference import reference_trace

RESIDUAL_MASS_EPS = 1e-12


def replacement_distribution(p: np.ndarray, q: np.ndarray, rule: str) -> np.ndarray:
    if rule == "exact":
        residual = np.array([max(0.0, a - b) for a, b in zip(p, q)])
        if residual.sum() > RESIDUAL_MASS_EPS:
            return residual / residual.sum()
    return p / p.sum()


def reference_distribution(p_row, q_row, rule: str) -> np.ndarray:
    """Σ over proposals x of q(x)·[accept: x] plus the rejection mass times the replacement."""
    p, q = np.asarray(p_row, dtype=np.float64), np.asarray(q_row, dtype=np.float64)
    out = np.zeros_like(p)
    for x, q_x in enumerate(q):
        if q_x > 0:
            out[x] += q_x * min(1.0, p[x] / q_x)
    rejection = 1.0 - out.sum()
    return out + rejection * replacement_distribution(p, q, rule)


def simulate_first_tokens(p_row, q_row, rule: str, runs: int, seed: int) -> np.ndarray:
    """Counts of the first emitted token over ``runs`` simulated verify steps (γ = 1)."""
    p, q = np.asarray(p_row, dtype=np.float64), np.asarray(q_row, dtype=np.float64)
    gen = np.random.default_rng(seed)
    drafts = gen.choice(len(q), size=runs, p=q)
    uniforms = gen.random((runs, 2))
    counts = np.zeros(len(p), dtype=np.int64)
    if rule == "exact":
        rows = np.stack([p, p])  # the bonus row is never reached by the first token
        for x, stream in zip(drafts, uniforms):
            counts[reference_trace(rows, q[None], [int(x)], stream).tokens[0]] += 1
        return counts
    cumulative = np.cumsum(p / p.sum())
    for x, (u, v) in zip(drafts, uniforms):
        if u < p[x] / q[x]:
            counts[x] += 1
        else:
            counts[min(int(np.searchsorted(cumulative, v, side="right")), len(p) - 1)] += 1
    return counts
