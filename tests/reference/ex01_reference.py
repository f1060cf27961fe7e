"""Exercise 01-speculative-step: an independent reference that records its reasoning.

It lives in tests/ and imports neither solutions/ nor speckata's sampler, so a bug there cannot
hide a bug in the reference. Besides the tokens it returns a trace: at every position the
uniform drawn, the ratio p/q, the decision, and the distribution each sample came from. The
grader uses the trace to tell a learner where and why their tokens diverge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

RESIDUAL_MASS_EPS = 1e-12


@dataclass
class Event:
    kind: str  # "accept", "reject", "replacement", "bonus"
    position: int
    token: int
    u: float
    ratio: float | None = None  # p/q for accept tests
    distribution: np.ndarray | None = None  # what a sample drew from, normalised
    source: str = ""  # "residual", "p[i] (residual had no mass)", "p[γ]"


@dataclass
class Trace:
    tokens: list[int] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def draws(self) -> int:
        return len(self.events)  # one uniform per accept test and one per sample

    def margin(self) -> float:
        """How close any uniform came to a decision boundary (a ratio or a CDF step)."""
        closest = np.inf
        for event in self.events:
            if event.ratio is not None:
                closest = min(closest, abs(event.u - event.ratio))
            if event.distribution is not None:
                steps = np.cumsum(event.distribution)[:-1]
                if steps.size:
                    closest = min(closest, float(np.min(np.abs(steps - event.u))))
        return closest


def inverse_cdf(weights: np.ndarray, u: float) -> int:
    distribution = weights / weights.sum()
    cumulative = 0.0
    last_positive = int(np.flatnonzero(weights)[-1])
    for index, w in enumerate(distribution):
        cumulative += w
        if w > 0 and cumulative > u:
            return index
    return last_positive


def reference_trace(p, q, draft, uniforms) -> Trace:
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64).reshape(len(draft), p.shape[1])
    stream = iter(uniforms)
    trace = Trace()

    def draw_sample(weights, position, kind, source):
        u = next(stream)
        token = inverse_cdf(weights, u)
        trace.events.append(Event(kind, position, token, u, distribution=weights / weights.sum(), source=source))
        trace.tokens.append(token)

    for i, x in enumerate(int(t) for t in draft):
        u = next(stream)
        ratio = p[i, x] / q[i, x]
        if u < ratio:
            trace.events.append(Event("accept", i, x, u, ratio=ratio))
            trace.tokens.append(x)
            continue
        trace.events.append(Event("reject", i, x, u, ratio=ratio))
        residual = np.maximum(p[i] - q[i], 0.0)
        if residual.sum() > RESIDUAL_MASS_EPS:
            draw_sample(residual, i, "replacement", "residual max(0, p[i] - q[i])")
        else:
            draw_sample(p[i], i, "replacement", "p[i] (the residual had no mass)")
        return trace
    gamma = len(draft)
    draw_sample(p[gamma], gamma, "bonus", "p[γ]")
    return trace
