"""Exercise 14-block-verification: the two statistical checks, shared by the suite and the margin gates.

``joint_chi_square`` runs a block verifier on drafts sampled from a context-dependent draft tree
(tests/reference/ex14_law.py) and compares the emitted sequences, all of them as whole
sequences, with the exact law of the block rule. ``mean_accepted_z`` runs a verifier on drafts
from per-position rows and compares its mean number of kept drafts with the exact mean.
"""

from __future__ import annotations

import math

import numpy as np

from speckata import ReplayRNG
from tests.reference.ex14_law import emitted_law, random_tree, step_rows
from tests.reference.ex14_reference import accepted_moments
from tests.shared.statistics import chi_square_test

# The joint test: V = 3, γ = 2, a target and a draft that disagree at every prefix.
JOINT_VOCAB, JOINT_GAMMA, JOINT_TREE_SEED = 3, 2, 15
JOINT_RUNS, JOINT_SEED = 4_000, 20261214
RARE = 5.0  # sequences whose expected count is below this are pooled into one bin


def joint_trees():
    """Random rows, except along the draft's favourite first token 0, where p_1 = 1/3 and the
    residual after it is max(p_1 · p - q, 0) = [0, 0, 0.1]: dropping the weight p_1 there would
    also emit token 1, which the rule never does after a kept token 0."""
    gen = np.random.default_rng(JOINT_TREE_SEED)
    target = random_tree(gen, JOINT_VOCAB, JOINT_GAMMA, 0.6)
    draft = random_tree(gen, JOINT_VOCAB, JOINT_GAMMA - 1, 0.6)
    target[()], draft[()] = np.array([0.2, 0.5, 0.3]), np.array([0.6, 0.2, 0.2])
    target[(0,)], draft[(0,)] = np.array([0.05, 0.35, 0.6]), np.array([0.6, 0.3, 0.1])
    return target, draft


def sample_block(gen: np.random.Generator, draft: dict, gamma: int, vocab: int) -> tuple[int, ...]:
    block: tuple[int, ...] = ()
    for _ in range(gamma):
        block += (int(gen.choice(vocab, p=draft[block])),)
    return block


def emitted_counts(verify, runs: int, seed: int, call) -> dict:
    """How often ``verify`` emits each sequence, ``call(verify, p, q, draft, rng)`` doing the call."""
    target, draft = joint_trees()
    gen = np.random.default_rng(seed)
    counts: dict = {}
    for _ in range(runs):
        block = sample_block(gen, draft, JOINT_GAMMA, JOINT_VOCAB)
        p, q = step_rows(target, draft, block)
        tokens = tuple(call(verify, p, q, list(block), ReplayRNG(gen.random(JOINT_GAMMA + 1))))
        counts[tokens] = counts.get(tokens, 0) + 1
    return counts


def joint_chi_square(verify, call=lambda f, *args: f(*args), runs: int = JOINT_RUNS, seed: int = JOINT_SEED):
    """(statistic, degrees of freedom, p-value, the sequences seen that the rule never emits)."""
    target, draft = joint_trees()
    law = emitted_law(target, draft, JOINT_GAMMA, JOINT_VOCAB)
    counts = emitted_counts(verify, runs, seed, call)
    common = sorted(s for s, chance in law.items() if chance * runs >= RARE)
    rare = [s for s in law if s not in common]
    impossible = sorted(s for s in counts if s not in law)
    observed = [counts.get(s, 0) for s in common] + [sum(counts.get(s, 0) for s in rare)] + [sum(counts[s] for s in impossible)]
    expected = [law[s] for s in common] + [sum(law[s] for s in rare)] + [0.0]
    statistic, df, pvalue, _ = chi_square_test(observed, expected)
    return statistic, df, pvalue, impossible


# The mean test: per-position rows (the same whatever was drafted before), γ = 3.
MEAN_CASES = ("toy", "random")  # the theory page's toy at γ = 3; random rows where block gains 0.18 σ
MEAN_GAMMA, MEAN_RUNS, MEAN_SEED, MEAN_Z = 3, 2_500, 1414, 4.5


def mean_case(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name == "toy":
        return np.array([[1 / 3, 2 / 3]] * (MEAN_GAMMA + 1)), np.array([[2 / 3, 1 / 3]] * MEAN_GAMMA)
    gen = np.random.default_rng(52)
    return gen.dirichlet(np.full(3, 0.5), size=MEAN_GAMMA + 1), gen.dirichlet(np.full(3, 0.5), size=MEAN_GAMMA)


def mean_accepted_z(verify, name: str, rule: str = "block", call=lambda f, *args: f(*args),
                    runs: int = MEAN_RUNS, seed: int = MEAN_SEED) -> tuple[float, float, float]:
    """(simulated mean of the drafts kept, exact mean of ``rule``, z = (mean − exact) / (σ / √N))."""
    p, q = mean_case(name)
    gen = np.random.default_rng(seed)
    drafts = np.stack([gen.choice(q.shape[1], size=runs, p=row) for row in q], axis=1)
    kept = [len(call(verify, p, q, draft.tolist(), ReplayRNG(gen.random(MEAN_GAMMA + 1)))) - 1 for draft in drafts]
    exact, variance = accepted_moments(p, q, rule)
    mean = float(np.mean(kept))
    return mean, exact, (mean - exact) / math.sqrt(variance / runs)
