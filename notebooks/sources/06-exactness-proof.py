# %% [markdown]
# # 06-exactness-proof, worked
#
# The exact rule's output distribution against the shortcut's (resample from p on rejection), as
# bars; the shortcut's bias across a family of drafts with its bound α(1 − α); and a Monte-Carlo
# run of exercise 01's reference solution that lands on the exact distribution.
# Theory: `theory/06-exactness-proof.md`. Exercise: `exercises/ex06_exactness_proof.py`.
#
# Notation: **p is the target**, **q is the draft**. The cells run **your** `output_distribution`
# from `exercises/ex06_exactness_proof.py` (through `notebooks/learner.py`): while your file is
# the stub they say "not written yet" beside the expected values; save your file and run them
# again. Exercise 01's rule comes from its reference solution.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

import learner

output_distribution = learner.yours("ex06_exactness_proof", "output_distribution")  # yours
speculative_step = learner.reference("ex01_speculative_step", "speculative_step")  # exercise 01, the reference

p = np.array([0.05, 0.10, 0.15, 0.30, 0.40])
q = np.array([0.40, 0.30, 0.15, 0.10, 0.05])
print("alpha", float(np.minimum(p, q).sum()), end="\n\n")
print('output_distribution(p, q, "exact"), rounded')
learner.compare(lambda: output_distribution(p, q, "exact").round(4).tolist(), [0.05, 0.1, 0.15, 0.3, 0.4])
print('output_distribution(p, q, "resample_from_target"), rounded')
learner.compare(lambda: output_distribution(p, q, "resample_from_target").round(4).tolist(),
                [0.0775, 0.155, 0.2325, 0.265, 0.27])

exact = shortcut = None  # yours, once written
with learner.until_written():
    exact = output_distribution(p, q, "exact")
    shortcut = output_distribution(p, q, "resample_from_target")
    print("TV(shortcut, p)", round(0.5 * float(np.abs(shortcut - p).sum()), 4))

    tokens = np.arange(len(p))
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar(tokens - 0.3, p, width=0.2, color="k", label="target p")
    ax.bar(tokens - 0.1, q, width=0.2, color="0.7", label="draft q")
    ax.bar(tokens + 0.1, exact, width=0.2, label="exact rule")
    ax.bar(tokens + 0.3, shortcut, width=0.2, label="resample_from_target")
    ax.set_xticks(tokens)
    ax.set_xlabel("first emitted token")
    ax.set_ylabel("probability")
    ax.legend(fontsize=8)
    plt.show()

# %% [markdown]
# ## How large the bias gets
#
# 3,000 random pairs (p, q) over 2 to 6 tokens, some with sparse or one-hot drafts. Each point
# is one pair: its acceptance rate α and the shortcut's distance from p. The exact rule's error
# stays at rounding level; the shortcut's is zero only at α = 0 and α = 1, and never exceeds the
# bound α(1 − α) from the theory page, which pairs like p = [0.5, 0.5], q = [1, 0] reach.

# %%
gen = np.random.default_rng(60)
with learner.until_written():
    alphas, biases, exact_errors = [], [], []
    for _ in range(3000):
        vocab = int(gen.integers(2, 7))
        p_row = gen.dirichlet(np.full(vocab, gen.choice([0.2, 1.0, 5.0])))
        q_row = gen.dirichlet(np.full(vocab, gen.choice([0.05, 0.2, 1.0])))
        alphas.append(float(np.minimum(p_row, q_row).sum()))
        biases.append(0.5 * float(np.abs(output_distribution(p_row, q_row, "resample_from_target") - p_row).sum()))
        exact_errors.append(float(np.abs(output_distribution(p_row, q_row, "exact") - p_row).max()))
    print("largest error of the exact rule:", max(exact_errors))
    print("largest shortcut bias seen:", round(max(biases), 4), " bound max α(1 − α) = 0.25")
    grid = np.linspace(0, 1, 101)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.scatter(alphas, biases, s=3, alpha=0.5, label="TV(shortcut, p), one point per pair")
    ax.plot(grid, grid * (1 - grid), "k--", label="bound α(1 − α)")
    ax.set_xlabel("α = Σ min(p, q)")
    ax.set_ylabel("total-variation distance")
    ax.legend(fontsize=8)
    plt.show()

# %% [markdown]
# ## Monte-Carlo with exercise 01
#
# 20,000 verify steps of exercise 01's reference solution (γ = 1, drafts sampled from q, seed 6),
# first tokens counted. Statistic: Pearson's chi-square over the 5 tokens, 4 degrees of freedom,
# against the exact distribution and against the shortcut's. The test in
# `tests/test_06_exactness_proof.py` uses the same statistic with a threshold of 1e-3.

# %%
gen = np.random.default_rng(6)
runs = 20_000
rows = np.stack([p, p])
counts = np.zeros(len(p))
for draft in gen.choice(len(q), size=runs, p=q):
    counts[speculative_step(rows, q[None], [int(draft)], gen)[0]] += 1

def chi_square(counts, probs):
    expected = counts.sum() * probs
    statistic = float(((counts - expected) ** 2 / expected).sum())
    return statistic, math.exp(-statistic / 2) * (1 + statistic / 2)  # survival function, 4 degrees of freedom

# Against your two distributions; while output_distribution is not written, against p itself.
against = {"p": p} if exact is None else {"exact": exact, "resample_from_target": shortcut}
for name, distribution in against.items():
    statistic, pvalue = chi_square(counts, distribution)
    print(f"against {name:<22} chi-square {statistic:9.1f}   p-value {pvalue:.3g}")

tokens = np.arange(len(p))
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.2, p, width=0.4, label="target p (= the exact distribution)")
ax.bar(tokens + 0.2, counts / runs, width=0.4, label="exercise 01, 20,000 steps")
if shortcut is not None:
    ax.plot(tokens, shortcut, "k_", markersize=25, label="the shortcut's distribution")
ax.set_xticks(tokens)
ax.set_xlabel("first emitted token")
ax.set_ylabel("frequency")
ax.legend(fontsize=8)
plt.show()
