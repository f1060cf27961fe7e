"""Exercise 02-acceptance-rate: an independent reference, and random distributions for the suites.

The reference computes α from its meaning, not from the min formula: the chance that a token the
draft proposes (drawn from q) survives the accept test u < p/q of exercise 01. It imports
nothing from solutions/. The generator of random distribution pairs is shared with the suites of
exercises 03 to 06.
"""

from __future__ import annotations

import numpy as np

STYLES = ("peaked", "flat", "sparse", "close", "disjoint")


def acceptance_probability(p_row, q_row) -> float:
    """Σ over the tokens the draft can propose of q(x)·min(1, p(x)/q(x))."""
    total = 0.0
    for p_x, q_x in zip(np.asarray(p_row, dtype=float), np.asarray(q_row, dtype=float)):
        if q_x > 0:
            total += q_x * min(1.0, p_x / q_x)
    return total


def total_variation(p_row, q_row) -> float:
    """½·Σ|p − q|, summed in plain Python."""
    return 0.5 * sum(abs(a - b) for a, b in zip(np.asarray(p_row, dtype=float), np.asarray(q_row, dtype=float)))


def random_distribution(gen: np.random.Generator, vocab: int, concentration: float, sparsity: float = 0.0) -> np.ndarray:
    row = gen.dirichlet(np.full(vocab, concentration))
    if sparsity and vocab > 1:
        row[gen.random(vocab) < sparsity] = 0.0
        if row.sum() == 0:
            row[gen.integers(vocab)] = 1.0
    return row / row.sum()


def random_pair(gen: np.random.Generator, vocab: int, style: str) -> tuple[np.ndarray, np.ndarray]:
    """A target row p and a draft row q over ``vocab`` tokens, related as ``style`` says."""
    if style == "peaked":
        return random_distribution(gen, vocab, 0.1), random_distribution(gen, vocab, 0.1)
    if style == "flat":
        return random_distribution(gen, vocab, 10.0), random_distribution(gen, vocab, 10.0)
    if style == "sparse":
        return random_distribution(gen, vocab, 1.0, 0.5), random_distribution(gen, vocab, 1.0, 0.5)
    if style == "close":  # a good draft: q is mostly p
        p = random_distribution(gen, vocab, 1.0)
        q = 0.9 * p + 0.1 * random_distribution(gen, vocab, 1.0)
        return p, q / q.sum()
    if style == "disjoint" and vocab >= 2:  # the supports share no token
        split = int(gen.integers(1, vocab))
        order = gen.permutation(vocab)
        p, q = np.zeros(vocab), np.zeros(vocab)
        p[order[:split]] = random_distribution(gen, split, 1.0)
        q[order[split:]] = random_distribution(gen, vocab - split, 1.0)
        return p, q
    return random_pair(gen, vocab, "flat")
