"""Exercise 17-typical-acceptance: what a wrong output distribution gives away about its cause."""

from __future__ import annotations

import numpy as np

from tests.reference.ex17_reference import reference_threshold

TOLERANCE = 1e-12


def greedy_at_argmax_q(result, p, q, on_reject, epsilon, delta) -> str:
    """A second line when the result is the greedy output with the replacement at the draft's argmax."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if on_reject != "greedy" or np.argmax(q) == np.argmax(p):
        return ""
    kept = np.where(p > reference_threshold(p, epsilon, delta), q, 0.0)
    at_q = kept.copy()
    at_q[np.argmax(q)] += 1.0 - kept.sum()
    if not np.all(np.abs(result - at_q) <= TOLERANCE):
        return ""
    return (f"\nYours puts the rejected mass on token {int(np.argmax(q))}, the draft's argmax q; the greedy replacement "
            f"is the target's argmax p, token {int(np.argmax(p))}.")
