"""Exercise 01-speculative-step: an independent reference that records its reasoning.

It lives in tests/ and imports neither solutions/ nor speckata's sampler, so a bug there cannot
hide a bug in the reference. Besides the tokens it returns a trace (speckata.grading.trace): at
every position the uniform drawn, the ratio p/q, the decision, and the distribution each sample
came from. The grader renders the trace to tell a learner where and why their tokens diverge.
"""

from __future__ import annotations

import numpy as np

from speckata.grading.trace import BONUS, FALLBACK, RESIDUAL, StepTrace

RESIDUAL_MASS_EPS = 1e-12


def inverse_cdf(weights: np.ndarray, u: float) -> int:
    distribution = weights / weights.sum()
    cumulative = 0.0
    last_positive = int(np.flatnonzero(weights)[-1])
    for index, w in enumerate(distribution):
        cumulative += w
        if w > 0 and cumulative > u:
            return index
    return last_positive


def reference_trace(p, q, draft, uniforms) -> StepTrace:
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64).reshape(len(draft), p.shape[1])
    stream = iter(uniforms)
    trace = StepTrace()

    def draw_sample(weights, position, kind, source):
        u = next(stream)
        trace.sample(kind, position, inverse_cdf(weights, u), weights / weights.sum(), source, u=u)

    for i, x in enumerate(int(t) for t in draft):
        u = next(stream)
        ratio = p[i, x] / q[i, x]
        if u < ratio:
            trace.accept(i, x, u, ratio)
            continue
        trace.reject(i, x, u, ratio)
        residual = np.maximum(p[i] - q[i], 0.0)
        if residual.sum() > RESIDUAL_MASS_EPS:
            draw_sample(residual, i, RESIDUAL, "residual max(0, p[i] - q[i])")
        else:
            draw_sample(p[i], i, FALLBACK, "p[i] (the residual had no mass)")
        return trace
    gamma = len(draft)
    draw_sample(p[gamma], gamma, BONUS, "p[γ]")
    return trace
