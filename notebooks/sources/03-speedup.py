# %% [markdown]
# # 03-speedup, worked
#
# Expected tokens per target pass against γ, the wall-time speedup with the best γ marked, a map
# of the best γ over (α, c), and a Monte-Carlo run of exercise 01 whose mean tokens per step sits
# on the formula. Theory: `theory/03-speedup.md`. Exercise: `exercises/ex03_speedup.py`.
#
# Notation: **p is the target**, **q is the draft**, c is a draft pass's cost in target passes.
# The cells run **your** three functions from `exercises/ex03_speedup.py` (through
# `notebooks/learner.py`): while your file is the stub they say "not written yet" beside the
# expected values; save your file and run them again. Exercises 01 and 02 come from their
# reference solutions.

# %%
import matplotlib.pyplot as plt
import numpy as np

import learner

# Yours, from exercises/ex03_speedup.py ...
expected_tokens_per_pass = learner.yours("ex03_speedup", "expected_tokens_per_pass")
walltime_speedup = learner.yours("ex03_speedup", "walltime_speedup")
optimal_gamma = learner.yours("ex03_speedup", "optimal_gamma")
# ... and the earlier exercises this notebook builds on.
speculative_step = learner.reference("ex01_speculative_step", "speculative_step")
acceptance_rate = learner.reference("ex02_acceptance_rate", "acceptance_rate")

print("E(0.8, 5)")
learner.compare(lambda: round(expected_tokens_per_pass(0.8, 5), 6), 3.68928)
print("S(0.8, 5, 0.05)")
learner.compare(lambda: round(walltime_speedup(0.8, 5, 0.05), 6), 2.951424)
print("best γ at α = 0.8, c = 0.05")
learner.compare(lambda: optimal_gamma(0.8, 0.05), 8)

# %% [markdown]
# ## Tokens per target pass
#
# E(α, γ) = 1 + α + ... + α^γ climbs towards its ceiling 1/(1 − α) (dashed): past a few drafts,
# a mediocre draft adds almost nothing.

# %%
gammas = np.arange(0, 21)
with learner.until_written():
    curves = {alpha: [expected_tokens_per_pass(alpha, int(g)) for g in gammas] for alpha in (0.5, 0.7, 0.8, 0.9, 0.95)}
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for alpha, curve in curves.items():
        line, = ax.plot(gammas, curve, marker=".", label=f"α = {alpha}")
        ax.axhline(1 / (1 - alpha), color=line.get_color(), linestyle="--", linewidth=0.8)
    ax.set_xlabel("γ (drafted tokens per step)")
    ax.set_ylabel("expected tokens per target pass")
    ax.set_ylim(0, 21)
    ax.legend(fontsize=8)
    plt.show()

# %% [markdown]
# ## Wall-time speedup and the best γ
#
# At α = 0.8: the speedup E / (γc + 1) for drafts of different relative cost c, with the γ that
# `optimal_gamma` picks marked. A cheap draft wants long guesses; at c = 0.5 speculation barely
# pays.

# %%
alpha, gammas = 0.8, np.arange(1, 33)
with learner.until_written():
    costs = (0.01, 0.05, 0.1, 0.2, 0.5)
    speedups = {c: [walltime_speedup(alpha, int(g), c) for g in gammas] for c in costs}
    best = {c: optimal_gamma(alpha, c) for c in costs}
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for c in costs:
        line, = ax.plot(gammas, speedups[c], label=f"c = {c}")
        ax.plot(best[c], walltime_speedup(alpha, best[c], c), "o", color=line.get_color())
        ax.annotate(f"γ={best[c]}", (best[c], walltime_speedup(alpha, best[c], c)), textcoords="offset points",
                    xytext=(4, 4), fontsize=8)
    ax.axhline(1, color="k", linewidth=0.8)
    ax.set_xlabel("γ")
    ax.set_ylabel(f"speedup at α = {alpha}")
    ax.legend(fontsize=8)
    plt.show()

# %% [markdown]
# ## The best γ over (α, c)
#
# Each cell is `optimal_gamma(α, c)`; the contour marks where even the best γ gives a speedup of
# 1 (to its left speculation loses: α ≤ c there, as the theory page proves).

# %%
alphas = np.linspace(0.02, 0.98, 49)
costs = np.linspace(0.0, 0.5, 51)
with learner.until_written():
    best = np.array([[optimal_gamma(float(a), float(c)) for a in alphas] for c in costs])
    gain = np.array([[walltime_speedup(float(a), int(b), float(c)) for a, b in zip(alphas, row)]
                     for c, row in zip(costs, best)])
    fig, ax = plt.subplots(figsize=(7, 3.8))
    image = ax.pcolormesh(alphas, costs, best, shading="nearest", cmap="viridis")
    ax.contour(alphas, costs, gain, levels=[1.0], colors="white")
    fig.colorbar(image, label="best γ (capped at 32)")
    ax.set_xlabel("α")
    ax.set_ylabel("c")
    plt.show()

# %% [markdown]
# ## Monte-Carlo: exercise 01 on a random (p, q)
#
# One random pair of rows over 8 tokens, used at every position so that every draft has the same
# acceptance rate α (the formula's assumption). For each γ, 4,000 verify steps with drafts
# sampled from q (exercise 01's reference solution); the mean number of tokens per step should
# sit on E(α, γ), your formula. Error bars are two standard errors.

# %%
gen = np.random.default_rng(3)
p_row = gen.dirichlet(np.ones(8))
q_row = 0.6 * p_row + 0.4 * gen.dirichlet(np.ones(8))
alpha = acceptance_rate(p_row, q_row)
print(f"α = {alpha:.4f}")
gammas, runs, means, errors = range(1, 9), 4000, [], []
for gamma in gammas:
    p, q = np.tile(p_row, (gamma + 1, 1)), np.tile(q_row, (gamma, 1))
    counts = [len(speculative_step(p, q, gen.choice(8, size=gamma, p=q_row).tolist(), gen)) for _ in range(runs)]
    means.append(np.mean(counts))
    errors.append(2 * np.std(counts) / np.sqrt(runs))
formula = None
with learner.until_written():
    formula = [expected_tokens_per_pass(alpha, g) for g in gammas]
for gamma, mean, error in zip(gammas, means, errors):
    against = "" if formula is None else f", formula {formula[gamma - 1]:.3f} ({learner.whose()})"
    print(f"γ = {gamma}: mean {mean:.3f} ± {error:.3f}{against}")
fig, ax = plt.subplots(figsize=(7, 3.4))
if formula is not None:
    ax.plot(list(gammas), formula, label=f"E(α, γ), {learner.whose()}")
ax.errorbar(list(gammas), means, yerr=errors, fmt="o", label="exercise 01, 4,000 steps each")
ax.set_xlabel("γ")
ax.set_ylabel("tokens per step")
ax.legend()
plt.show()
