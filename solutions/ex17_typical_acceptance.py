"""Exercise 17-typical-acceptance: reference solution. The exercise text is in exercises/ex17_typical_acceptance.py."""

import math

import numpy as np

from speckata.validation import as_probability_rows, check_distributions

ON_REJECT = ("greedy", "sample")


def check_row(name, row):
    row, tolerance = as_probability_rows(name, row)
    if row.ndim != 1 or row.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D row of probabilities; got shape {row.shape}")
    check_distributions(name, row[None], tolerance)
    return row


def check_pair(p_row, q_row, names=("p", "q")):
    p, q = check_row(names[0], p_row), check_row(names[1], q_row)
    if p.shape != q.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have the same shape; got {p.shape} and {q.shape}")
    return p, q


def check_setting(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    return float(value)


def entropy(p):
    """H(p) in nats; a token with p = 0 adds nothing (0 · log 0 = 0)."""
    support = p[p > 0]
    return float(-(support * np.log(support)).sum())


def threshold_of(p, epsilon, delta):
    return min(epsilon, delta * math.exp(-entropy(p)))


def typical_threshold(p_row, epsilon=0.09, delta=0.3):
    p = check_row("p", p_row)
    return threshold_of(p, check_setting("epsilon", epsilon), check_setting("delta", delta))


def accepted_mass(p, q, epsilon, delta):
    """q(x) where the target accepts x (p(x) > threshold), 0 elsewhere."""
    return np.where(p > threshold_of(p, epsilon, delta), q, 0.0)


def typical_acceptance_rate(p_row, q_row, epsilon=0.09, delta=0.3):
    p, q = check_pair(p_row, q_row)
    epsilon, delta = check_setting("epsilon", epsilon), check_setting("delta", delta)
    return float(accepted_mass(p, q, epsilon, delta).sum())


def typical_output_distribution(p_row, q_row, on_reject="greedy", epsilon=0.09, delta=0.3):
    if not isinstance(on_reject, str) or on_reject not in ON_REJECT:
        raise ValueError(f"unknown on_reject {on_reject!r}: expected 'greedy' or 'sample'")
    p, q = check_pair(p_row, q_row)
    epsilon, delta = check_setting("epsilon", epsilon), check_setting("delta", delta)
    accepted = accepted_mass(p, q, epsilon, delta)  # the draft proposed x and the target kept it
    rejected = 1.0 - accepted.sum()
    if on_reject == "greedy":
        replacement = np.zeros_like(p)
        replacement[np.argmax(p)] = 1.0  # the lowest index among ties
    else:
        replacement = p / p.sum()
    return accepted + rejected * replacement


def total_variation(a, b):
    a, b = check_pair(a, b, names=("a", "b"))
    return float(0.5 * np.abs(a - b).sum())
