# %% [markdown]
# # 14-block-verification, worked
#
# Block verification keeps a draft block by looking at all of it before deciding. This notebook
# runs your `block_verify` and `expected_accepted` (from `exercises/ex14_block_verification.py`)
# on the theory page's toy, then thousands of times beside exercise 01's token-by-token rule:
# same target law, more drafts kept. Theory: `theory/14-block-verification.md`.
#
# Notation: **p is the target**, **q is the draft**.

# %%
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np

import learner
from speckata import ReplayRNG

# Yours: "not written yet" (with the expected values) while it is the stub. Save your file, then
# run the cells again. Exercise 01's rule, for comparison, is the reference's.
block_verify = learner.yours("ex14_block_verification", "block_verify")
expected_accepted = learner.yours("ex14_block_verification", "expected_accepted")
speculative_step = learner.reference("ex01_speculative_step", "speculative_step")

# %% [markdown]
# ## The toy, step by step
#
# p = [1/3, 2/3] and q = [2/3, 1/3] at every position, γ = 2. The weights and stopping weights
# along three drafts (the rule's steps 1 and 2 in the exercise text; work them out, then check
# your numbers here):
#
# | draft | p_1 | h_1 | p_2 = h_2 |
# |---|---|---|---|
# | [0, 1] | 1/2 | 0 | 1 |
# | [0, 0] | 1/2 | 0 | 1/4 |
# | [1, 0] | 1 | 1 | 1/2 |
#
# Draft [0, 1] is kept whole whatever η is (h_2 = 1): the extra token comes from p[2]. Draft [0, 0]
# with η = (0.1, 0.6) keeps nothing (h = (0, 1/4)) and samples the residual max(p[0] − q[0], 0) =
# [0, 1/3]: token 1. With η_2 = 0.2 < 1/4 it keeps both. Draft [1, 0] keeps its first token
# whatever η_1 is (h_1 = 1); with η_2 = 0.6 ≥ 1/2 it stops there, and the residual at position 1,
# with weight p_1 = 1, is max(p[1] − q[1], 0) = [0, 1/3]: token 1. Every call draws γ + 1 = 3
# numbers. Your `block_verify` on these streams, beside the expected results:

# %%
p_row, q_row = np.array([1 / 3, 2 / 3]), np.array([2 / 3, 1 / 3])
p, q = np.array([p_row] * 3), np.array([q_row] * 2)


def tokens_and_draws(draft, stream):
    rng = ReplayRNG(stream)
    return block_verify(p, q, draft, rng), rng.draws


learner.compare(lambda: tokens_and_draws([0, 1], [0.7, 0.3, 0.5]), ([0, 1, 1], 3))
learner.compare(lambda: tokens_and_draws([0, 0], [0.1, 0.6, 0.5]), ([1], 3))
learner.compare(lambda: tokens_and_draws([0, 0], [0.1, 0.2, 0.5]), ([0, 0, 1], 3))
learner.compare(lambda: tokens_and_draws([1, 0], [0.9, 0.6, 0.5]), ([1, 1], 3))

# %% [markdown]
# ## Expected drafts kept, exactly
#
# Your `expected_accepted` on the toy: 10/9 for token verification, 11/9 for block verification.

# %%
def as_fraction(value):
    return str(Fraction(value).limit_denominator(1000))


learner.compare(lambda: as_fraction(expected_accepted(p, q, "token")), "10/9", describe=str)
learner.compare(lambda: as_fraction(expected_accepted(p, q, "block")), "11/9", describe=str)

# %% [markdown]
# ## Many steps: both rules, the same law, different lengths
#
# 20,000 steps of each rule on drafts sampled from q (γ = 3). The first emitted token has the
# target's law under both rules (a check of exactness you can see); the number of drafts kept
# differs, and its mean sits on `expected_accepted`.

# %%
gamma, steps = 3, 20_000
p3, q3 = np.array([p_row] * (gamma + 1)), np.array([q_row] * gamma)
gen = np.random.default_rng(14)
drafts = gen.choice(2, size=(steps, gamma), p=q_row)
with learner.until_written():
    kept, first = {}, {}
    for name, rule in (("token", speculative_step), ("block", block_verify)):
        outputs = [rule(p3, q3, draft.tolist(), gen) for draft in drafts]
        kept[name] = np.array([len(out) - 1 for out in outputs])
        first[name] = np.mean([out[0] == 1 for out in outputs])
        exact = expected_accepted(p3, q3, name)
        print(f"{name}: mean kept {kept[name].mean():.4f} (exact {exact:.4f}), first token 1 in {first[name]:.4f} "
              f"of steps (target 0.6667)")
    fig, ax = plt.subplots(figsize=(6, 3))
    for offset, name in ((-0.2, "token"), (0.2, "block")):
        shares = np.bincount(kept[name], minlength=gamma + 1) / steps
        ax.bar(np.arange(gamma + 1) + offset, shares, width=0.4, label=f"{name} verification")
    ax.set_xticks(np.arange(gamma + 1))  # a count: whole numbers only
    ax.set_xlabel("drafts kept in a step")
    ax.set_ylabel("share of steps")
    ax.legend()
    plt.show()

# %% [markdown]
# ## The gain grows with γ
#
# The toy's exact gain, from your `expected_accepted`, for γ = 1 to 6 (no gain at γ = 1: the two
# rules coincide there): the expected drafts kept by each rule, and block's gain over token.

# %%
with learner.until_written():
    gammas, kept_by = list(range(1, 7)), {"token": [], "block": []}
    for g in gammas:
        rows_p, rows_q = np.array([p_row] * (g + 1)), np.array([q_row] * g)
        token, block = expected_accepted(rows_p, rows_q, "token"), expected_accepted(rows_p, rows_q, "block")
        kept_by["token"].append(token)
        kept_by["block"].append(block)
        print(f"γ = {g}: token {token:.4f}, block {block:.4f}, gain {block / token - 1:+.1%}")
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3))
    for name, values in kept_by.items():
        left.plot(gammas, values, marker="o", label=f"{name} verification")
    left.set_xlabel("γ (drafts per step)")
    left.set_ylabel("expected drafts kept")
    left.legend()
    gains = [100 * (b / t - 1) for b, t in zip(kept_by["block"], kept_by["token"])]
    right.bar(gammas, gains)
    right.set_xlabel("γ (drafts per step)")
    right.set_ylabel("block's gain over token (%)")
    for ax in (left, right):
        ax.set_xticks(gammas)
    plt.show()
