"""Exercise 16-top-k-drafts: an independent reference that records its reasoning.

It imports nothing from solutions/ and samples with exercise 01's reference inverse CDF, not
speckata's sampler. Each tried candidate is one accept test (speckata.grading.trace: ACCEPT or
REJECT, at "position" j, the candidate's rank); the final sample from what is left of p is a
RESIDUAL event, the fallback to p a FALLBACK event. The suite renders the trace beside the
learner's token when they differ.
"""

from __future__ import annotations

import numpy as np

from speckata.grading.trace import FALLBACK, RESIDUAL, StepTrace
from tests.reference.ex01_reference import inverse_cdf

LEFT_MASS_EPS = 1e-12
LEFT_SOURCE = "what is left of p (rejected candidates removed)"
FALLBACK_SOURCE = "p (what is left has no mass)"


def reference_trace(p, candidates, uniforms) -> StepTrace:
    """Walk the candidates in order: accept x when u < left(x) / Σ left, else drop x from left."""
    left = [float(v) for v in np.asarray(p, dtype=np.float64)]
    original = np.array(left)
    stream = iter(uniforms)
    trace = StepTrace()

    def draw_sample(weights, kind, source):
        weights = np.asarray(weights, dtype=np.float64)
        u = next(stream)
        trace.sample(kind, len(candidates), inverse_cdf(weights, u), weights / weights.sum(), source, u=u)

    for rank, x in enumerate(int(c) for c in candidates):
        u = next(stream)
        ratio = left[x] / sum(left)
        if u < ratio:
            trace.accept(rank, x, u, ratio)
            return trace
        trace.reject(rank, x, u, ratio)
        left[x] = 0.0
        if sum(left) <= LEFT_MASS_EPS:
            draw_sample(original, FALLBACK, FALLBACK_SOURCE)
            return trace
    draw_sample(left, RESIDUAL, LEFT_SOURCE)
    return trace

