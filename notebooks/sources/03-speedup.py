# %% [markdown]
# # 03-speedup, worked
#
# Expected tokens per target pass against γ, the wall-time speedup with the best γ marked, a map
# of the best γ over (α, c), and a Monte-Carlo run of exercise 01 whose mean tokens per step sits
# on the formula. Theory: `theory/03-speedup.md`. Exercise: `exercises/ex03_speedup.py`.
#
# Notation: **p is the target**, **q is the draft**, c is a draft pass's cost in target passes.
# The cells use the reference solutions in `solutions/`; change `"../solutions"` to
# `"../exercises"` to run your own code.

# %%
import sys

import matplotlib.pyplot as plt
import numpy as np

sys.path.insert(0, "../solutions")
from ex01_speculative_step import speculative_step
from ex02_acceptance_rate import acceptance_rate
from ex03_speedup import expected_tokens_per_pass, optimal_gamma, walltime_speedup

print("E(0.8, 5) =", expected_tokens_per_pass(0.8, 5), " S(0.8, 5, 0.05) =", walltime_speedup(0.8, 5, 0.05))

# %% [markdown]
# ## Tokens per target pass
#
# E(α, γ) = 1 + α + ... + α^γ climbs towards its ceiling 1/(1 − α) (dashed): past a few drafts,
# a mediocre draft adds almost nothing.

# %%
gammas = np.arange(0, 21)
fig, ax = plt.subplots(figsize=(7, 3.6))
for alpha in (0.5, 0.7, 0.8, 0.9, 0.95):
    line, = ax.plot(gammas, [expected_tokens_per_pass(alpha, int(g)) for g in gammas], marker=".", label=f"α = {alpha}")
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
fig, ax = plt.subplots(figsize=(7, 3.6))
for c in (0.01, 0.05, 0.1, 0.2, 0.5):
    speedups = [walltime_speedup(alpha, int(g), c) for g in gammas]
    best = optimal_gamma(alpha, c)
    line, = ax.plot(gammas, speedups, label=f"c = {c}")
    ax.plot(best, walltime_speedup(alpha, best, c), "o", color=line.get_color())
    ax.annotate(f"γ={best}", (best, walltime_speedup(alpha, best, c)), textcoords="offset points", xytext=(4, 4), fontsize=8)
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
best = np.array([[optimal_gamma(float(a), float(c)) for a in alphas] for c in costs])
gain = np.array([[walltime_speedup(float(a), optimal_gamma(float(a), float(c)), float(c)) for a in alphas] for c in costs])
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
# sampled from q; the mean number of tokens per step should sit on E(α, γ). Error bars are two
# standard errors.

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
    print(f"γ = {gamma}: mean {means[-1]:.3f} ± {errors[-1]:.3f}, formula {expected_tokens_per_pass(alpha, gamma):.3f}")
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.plot(list(gammas), [expected_tokens_per_pass(alpha, g) for g in gammas], label="E(α, γ)")
ax.errorbar(list(gammas), means, yerr=errors, fmt="o", label="exercise 01, 4,000 steps each")
ax.set_xlabel("γ")
ax.set_ylabel("tokens per step")
ax.legend()
plt.show()
