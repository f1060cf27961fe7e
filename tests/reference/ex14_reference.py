"""Exercise 14-block-verification: an independent reference that records its reasoning.

It imports neither solutions/ nor speckata's sampler. ``reference_trace`` replays one step and
returns, besides the shared trace events (speckata.grading.trace: a kept draft is an ACCEPT, a
dropped one a REJECT, each with its η and its stopping weight h; then one sample), the weights
p_i and h_i the learner's table shows. ``expected_accepted`` and ``expected_accepted_via_stops``
compute the expected number of kept drafts by enumeration, the second through the law of τ
(P(τ = i | block) = h_i Π_{j>i} (1 − h_j)) rather than through P(τ ≥ i | prefix) = p_i, so the
two cross-check the lemma the theory page proves.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from speckata.grading.trace import BONUS, FALLBACK, RESIDUAL, StepTrace
from tests.reference.ex01_reference import inverse_cdf

RESIDUAL_MASS_EPS = 1e-12


@dataclass
class BlockTrace:
    """One step: the weights p_0..p_γ, the stopping weights h_1..h_γ, the η's, τ, the shared events."""

    weights: list[float]
    stops: list[float]  # stops[i] = h_i for i = 1..γ; stops[0] unused
    ratios: list[float]  # ratios[i] = p[i-1, x_i] / q[i-1, x_i]; ratios[0] unused
    etas: list[float]
    tau: int
    events: StepTrace = field(default_factory=StepTrace)

    @property
    def tokens(self) -> list[int]:
        return self.events.tokens

    @property
    def draws(self) -> int:
        return self.events.draws

    def margin(self) -> float:
        """How close a decisive uniform came to its boundary: η_i to h_i for i ≥ τ (η's below τ
        cannot change τ), and the sample's uniform to a step of its distribution."""
        closest = min((abs(self.etas[i - 1] - self.stops[i]) for i in range(max(self.tau, 1), len(self.etas) + 1)),
                      default=np.inf)
        return min(closest, self.events.margin() if self.events.events else np.inf)


def weights_and_stops(p, q, draft) -> tuple[list[float], list[float], list[float]]:
    gamma = len(draft)
    weights, stops, ratios = [1.0], [0.0], [0.0]
    for i in range(1, gamma + 1):
        x = int(draft[i - 1])
        ratios.append(p[i - 1][x] / q[i - 1][x])
        weights.append(min(1.0, weights[-1] * ratios[-1]))
        if i == gamma:
            stops.append(weights[-1])
        else:
            surplus = float(np.clip(weights[-1] * p[i] - q[i], 0.0, None).sum())
            stops.append(surplus / (surplus + 1.0 - weights[-1]) if surplus > RESIDUAL_MASS_EPS else 0.0)
    return weights, stops, ratios


def reference_trace(p, q, draft, uniforms) -> BlockTrace:
    p = np.asarray(p, dtype=np.float64)
    gamma = len(draft)
    q = np.asarray(q, dtype=np.float64).reshape(gamma, p.shape[1])
    draft = [int(t) for t in draft]
    stream = iter(uniforms)
    etas = [float(next(stream)) for _ in range(gamma)]
    weights, stops, ratios = weights_and_stops(p, q, draft)
    tau = max([i for i in range(1, gamma + 1) if etas[i - 1] < stops[i]], default=0)
    trace = BlockTrace(weights, stops, ratios, etas, tau)
    for i in range(1, gamma + 1):
        (trace.events.accept if i <= tau else trace.events.reject)(i - 1, draft[i - 1], etas[i - 1], stops[i])
    u = float(next(stream))
    if tau == gamma:
        kind, weights_row, source = BONUS, p[gamma], "p[γ] (every draft kept)"
    else:
        kind, weights_row = RESIDUAL, np.clip(weights[tau] * p[tau] - q[tau], 0.0, None)
        source = "residual max(p_τ · p[τ] - q[τ], 0)"
        if weights_row.sum() <= RESIDUAL_MASS_EPS:
            kind, weights_row, source = FALLBACK, p[tau], "p[τ] (the residual had no mass)"
    trace.events.sample(kind, tau, inverse_cdf(weights_row, u), weights_row / weights_row.sum(), source, u=u)
    return trace


def drafted_blocks(q):
    """Every block the draft can propose, with its probability under q (rows independent of the prefix)."""
    gamma, vocab = q.reshape(len(q), -1).shape if len(q) else (0, 1)
    for block in itertools.product(range(vocab), repeat=gamma):
        chance = float(np.prod([q[i, x] for i, x in enumerate(block)])) if gamma else 1.0
        if chance > 0:
            yield block, chance


def tau_law(stops: list[float]) -> list[float]:
    """P(τ = i) for i = 0..γ given the stopping weights: the largest i whose η_i < h_i."""
    gamma = len(stops) - 1
    law = []
    for i in range(gamma + 1):
        later = float(np.prod([1.0 - stops[j] for j in range(i + 1, gamma + 1)]))
        law.append((stops[i] if i else 1.0) * later)
    return law


def expected_accepted_via_stops(p, q, rule: str) -> float:
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    total = 0.0
    for block, chance in drafted_blocks(q):
        if rule == "block":
            law = tau_law(weights_and_stops(p, q, block)[1])
            total += chance * sum(i * share for i, share in enumerate(law))
        else:  # token: the i-th draft survives the i accept tests min(1, p/q) in a row
            survive = np.cumprod([min(1.0, p[i, x] / q[i, x]) for i, x in enumerate(block)])
            total += chance * float(survive.sum())
    return total


def expected_accepted(p, q, rule: str) -> float:
    """Σ_i E_q[P(at least i drafts kept | the first i drafts)]: p_i (block) or Π min(1, p/q) (token)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    total = 0.0
    for block, chance in drafted_blocks(q):
        weight, kept = 1.0, 1.0
        for i, x in enumerate(block):
            ratio = p[i, x] / q[i, x]
            weight, kept = min(1.0, weight * ratio), kept * min(1.0, ratio)
            total += chance * (weight if rule == "block" else kept)
    return total


def accepted_moments(p, q, rule: str) -> tuple[float, float]:
    """The exact mean and variance of the number of drafts kept, by enumeration (rows independent of the prefix)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    first = second = 0.0
    for block, chance in drafted_blocks(q):
        if rule == "block":
            law = tau_law(weights_and_stops(p, q, block)[1])
        else:
            survive = list(np.cumprod([min(1.0, p[i, x] / q[i, x]) for i, x in enumerate(block)]))
            at_least = [1.0] + survive + [0.0]
            law = [at_least[k] - at_least[k + 1] for k in range(len(block) + 1)]
        first += chance * sum(k * share for k, share in enumerate(law))
        second += chance * sum(k * k * share for k, share in enumerate(law))
    return first, second - first**2
