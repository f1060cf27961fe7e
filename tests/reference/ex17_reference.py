"""Exercise 17-typical-acceptance: an independent reference, path by path.

It imports nothing from solutions/. The entropy is a plain loop over math.log; the output
distribution adds up, for every token x the draft can propose, the one path that follows: the
target keeps x (p(x) above the threshold) or replaces it (its greedy token, or a sample from p).
The greedy token is exercise 04's reference's first maximum (tests/reference/ex04_reference.py).
"""

from __future__ import annotations

import math

import numpy as np

from tests.reference.ex04_reference import first_maximum


def reference_entropy(p) -> float:
    return -math.fsum(float(v) * math.log(float(v)) for v in p if v > 0)


def reference_threshold(p, epsilon: float, delta: float) -> float:
    return min(float(epsilon), float(delta) * math.exp(-reference_entropy(p)))


def reference_acceptance_rate(p, q, epsilon: float, delta: float) -> float:
    tau = reference_threshold(p, epsilon, delta)
    return float(sum(float(q_x) for p_x, q_x in zip(p, q) if p_x > tau))


def reference_distribution(p, q, on_reject: str, epsilon: float, delta: float) -> np.ndarray:
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    tau = reference_threshold(p, epsilon, delta)
    out = np.zeros_like(p)
    for x, q_x in enumerate(q):
        if p[x] > tau:  # proposal x kept; otherwise its mass q(x) goes to the replacement below
            out[x] += q_x
    # Rows may be off by up to 1e-6: the rejected mass is what the accepted path leaves of 1.
    rejected = 1.0 - out.sum()
    if on_reject == "greedy":
        out[first_maximum(p)] += rejected  # the greedy token: argmax p, the lowest on a tie
    else:
        out += rejected * p / p.sum()
    return out


def reference_total_variation(a, b) -> float:
    return 0.5 * math.fsum(abs(float(x) - float(y)) for x, y in zip(a, b))


def closest_to_threshold(p, epsilon: float, delta: float) -> float:
    """How near any p(x) lies to the threshold: generated cases keep this above 1e-9 so that
    rounding in another (correct) entropy sum cannot flip a decision."""
    tau = reference_threshold(p, epsilon, delta)
    return float(np.min(np.abs(np.asarray(p, dtype=np.float64) - tau)))
