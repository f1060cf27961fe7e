# %% [markdown]
# # 02-acceptance-rate, worked
#
# The acceptance rate α = Σ min(p, q) as a picture (the area two histograms share), the identity
# α = 1 − TV(p, q) checked on many random pairs, and how the sampling temperature moves α.
# Theory: `theory/02-acceptance-rate.md`. Exercise: `exercises/ex02_acceptance_rate.py`.
#
# Notation: **p is the target**, **q is the draft**. The cells run **your** `acceptance_rate`
# from `exercises/ex02_acceptance_rate.py` (through `notebooks/learner.py`): while your file is the
# stub they say "not written yet" beside the expected values; save your file and run them again.

# %%
import matplotlib.pyplot as plt
import numpy as np

import learner

acceptance_rate = learner.yours("ex02_acceptance_rate", "acceptance_rate")

p = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])  # target at positions 0 and 1 of exercise 01
q = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])  # draft at the same positions
print("alpha per position")
learner.compare(lambda: acceptance_rate(p, q).round(6).tolist(), [0.7, 0.8])

# %% [markdown]
# ## The overlap
#
# The shaded bars are min(p, q): what a proposal from q delivers after the accept test. Their
# total is α; the rest of p (above the shading) is what rejections must supply.

# %%
alphas = [None, None]  # yours, for the titles
with learner.until_written():
    alphas = [acceptance_rate(p[position], q[position]) for position in range(2)]
tokens = np.arange(3)
fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharey=True)
for position, ax in enumerate(axes):
    ax.bar(tokens - 0.2, p[position], width=0.4, label="p (target)", alpha=0.6)
    ax.bar(tokens + 0.2, q[position], width=0.4, label="q (draft)", alpha=0.6)
    ax.bar(tokens, np.minimum(p[position], q[position]), width=0.8, fill=False, hatch="//", label="min(p, q)")
    ax.set_title(f"position {position}" + ("" if alphas[position] is None else f": α = {alphas[position]:.2f}"))
    ax.set_xticks(tokens)
    ax.set_xlabel("token")
axes[0].set_ylabel("probability")
axes[0].legend(fontsize=8)
plt.show()

# %% [markdown]
# ## α = 1 − TV on random pairs
#
# 600 random pairs over 10 tokens, from near-identical to disjoint. Every point lies on the
# diagonal: the acceptance rate is one minus the total-variation distance.

# %%
gen = np.random.default_rng(2)
pairs_p = gen.dirichlet(np.full(10, 0.5), size=600)
mix = gen.random((600, 1))
pairs_q = mix * pairs_p + (1 - mix) * gen.dirichlet(np.full(10, 0.5), size=600)
tv = 0.5 * np.abs(pairs_p - pairs_q).sum(axis=1)
with learner.until_written():
    alphas = acceptance_rate(pairs_p, pairs_q)
    print("largest |α − (1 − TV)|:", float(np.abs(alphas - (1 - tv)).max()))
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.scatter(1 - tv, alphas, s=6)
    ax.plot([0, 1], [0, 1], "k--", linewidth=1)
    ax.set_xlabel("1 − TV(p, q)")
    ax.set_ylabel(f"acceptance_rate(p, q), {learner.whose()}")
    plt.show()

# %% [markdown]
# ## Temperature moves α
#
# Tempering both rows (probabilities to the power 1/T, renormalised) changes their overlap. At
# position 0 the two models disagree about the favourite token, so low temperatures push them
# apart (α → 0); at position 1 they agree, and sharpening both drives α to 1. High temperatures
# flatten both towards uniform, where α → 1 either way.

# %%
def tempered(rows, t):
    weights = rows ** (1 / t)
    return weights / weights.sum(axis=-1, keepdims=True)

temperatures = np.geomspace(0.1, 10, 60)
with learner.until_written():
    curves = [[acceptance_rate(tempered(p[position], t), tempered(q[position], t)) for t in temperatures]
              for position in range(2)]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for position, curve in enumerate(curves):
        ax.plot(temperatures, curve, label=f"position {position}")
    ax.set_xscale("log")
    ax.set_xlabel("temperature T (both sides)")
    ax.set_ylabel("α")
    ax.legend()
    plt.show()
