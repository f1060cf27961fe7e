"""Exercise 14-block-verification: the exact law of the emitted block, for context-dependent models.

A model here is a tree: a probability row for every prefix of drafted tokens (a dict from the
prefix tuple to its row), so the target's row after a drafted prefix depends on every token in
it, as a real language model's does. ``emitted_law`` enumerates every block the draft can
propose and every τ (tests/reference/ex14_reference.py) and returns the exact probability of
each emitted sequence; ``completed_law`` extends each emitted sequence to length γ+1 with the
target's own rows, which for an exact rule must give the target's joint law of γ+1 tokens.
"""

from __future__ import annotations

import itertools

import numpy as np

from tests.reference.ex14_reference import RESIDUAL_MASS_EPS, tau_law, weights_and_stops


def random_tree(gen: np.random.Generator, vocab: int, depth: int, concentration: float) -> dict:
    """A row for every prefix of length 0..depth over ``vocab`` tokens (Dirichlet rows)."""
    return {prefix: gen.dirichlet(np.full(vocab, concentration))
            for length in range(depth + 1) for prefix in itertools.product(range(vocab), repeat=length)}


def step_rows(target: dict, draft: dict, block) -> tuple[np.ndarray, np.ndarray]:
    """p (γ+1, V) and q (γ, V) along a drafted block, as the two models' passes give them."""
    block = tuple(int(x) for x in block)
    p = np.array([target[block[:i]] for i in range(len(block) + 1)])
    q = np.array([draft[block[:i]] for i in range(len(block))]).reshape(len(block), p.shape[1])
    return p, q


def block_chance(draft: dict, block) -> float:
    return float(np.prod([draft[tuple(block[:i])][x] for i, x in enumerate(block)]))


def emitted_law(target: dict, draft: dict, gamma: int, vocab: int) -> dict:
    """P(the step emits exactly this sequence), for every sequence of length 1..γ+1."""
    law: dict = {}
    for block in itertools.product(range(vocab), repeat=gamma):
        chance = block_chance(draft, block)
        if chance == 0:
            continue
        p, q = step_rows(target, draft, block)
        weights, stops, _ = weights_and_stops(p, q, block)
        for tau, share in enumerate(tau_law(stops)):
            if tau == gamma:
                last = p[gamma]
            else:
                last = np.clip(weights[tau] * p[tau] - q[tau], 0.0, None)
                last = last if last.sum() > RESIDUAL_MASS_EPS else p[tau]
            for y, py in enumerate(last / last.sum()):
                if py > 0:
                    key = block[:tau] + (y,)
                    law[key] = law.get(key, 0.0) + chance * share * py
    return law


def completed_law(law: dict, target: dict, gamma: int) -> dict:
    """Each emitted sequence continued to γ+1 tokens by the target's rows: the law of γ+1 tokens."""
    out: dict = {}
    for sequence, chance in law.items():
        pending = [(tuple(sequence), chance)]
        while pending:
            prefix, mass = pending.pop()
            if len(prefix) == gamma + 1:
                out[prefix] = out.get(prefix, 0.0) + mass
                continue
            pending.extend((prefix + (y,), mass * py) for y, py in enumerate(target[prefix]) if py > 0)
    return out


def target_law(target: dict, length: int, vocab: int) -> dict:
    """The target's own probability of every sequence of ``length`` tokens."""
    return {s: float(np.prod([target[s[:i]][x] for i, x in enumerate(s)]))
            for s in itertools.product(range(vocab), repeat=length)}
