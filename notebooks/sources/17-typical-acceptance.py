# %% [markdown]
# # 17-typical-acceptance, worked
#
# Medusa's typical acceptance keeps a proposal x when p(x) > min(ε, δ·exp(−H(p))). This notebook
# runs your functions (from `exercises/ex17_typical_acceptance.py`) on the worked example, checks
# your exact distribution against a simulation of the mechanism, and draws how the acceptance
# rate and the distance from the target move with ε. Theory: `theory/17-typical-acceptance.md`.
#
# Notation: **p is the target**, **q is the draft**.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

import learner

# Yours: "not written yet" (with the expected values) while they are stubs. Save your file, then
# run the cells again.
typical_threshold = learner.yours("ex17_typical_acceptance", "typical_threshold")
typical_acceptance_rate = learner.yours("ex17_typical_acceptance", "typical_acceptance_rate")
typical_output_distribution = learner.yours("ex17_typical_acceptance", "typical_output_distribution")
total_variation = learner.yours("ex17_typical_acceptance", "total_variation")

rounded = lambda values: np.round(values, 6).tolist()  # noqa: E731

# %% [markdown]
# ## The worked example
#
# p = [0.7, 0.2, 0.06, 0.04] has entropy 0.869 nats, so δ·exp(−H) ≈ 0.126 and ε = 0.09 is the
# threshold. A uniform draft proposes tokens 2 and 3 half of the time, and the target drops them.

# %%
p = np.array([0.7, 0.2, 0.06, 0.04])
q = np.array([0.25, 0.25, 0.25, 0.25])
learner.compare(lambda: round(typical_threshold(p), 6), 0.09)
learner.compare(lambda: round(typical_acceptance_rate(p, q), 6), 0.5)
learner.compare(lambda: rounded(typical_output_distribution(p, q, "greedy")), [0.75, 0.25, 0.0, 0.0])
learner.compare(lambda: rounded(typical_output_distribution(p, q, "sample")), [0.6, 0.35, 0.03, 0.02])
learner.compare(lambda: round(total_variation(typical_output_distribution(p, q, "greedy"), p), 6), 0.1)

# %% [markdown]
# ## Your distribution against the mechanism
#
# 20,000 runs of the rule itself: the draft samples x from q, the target keeps it when p(x) is
# above the threshold, and otherwise emits its greedy token. The frequencies should sit on your
# computed distribution, and visibly off the target's p.

# %%
def simulate(p, q, runs=20_000, seed=0):
    gen = np.random.default_rng(seed)
    entropy = -sum(v * math.log(v) for v in p if v > 0)
    tau = min(0.09, 0.3 * math.exp(-entropy))
    counts = np.zeros(len(p))
    for x in gen.choice(len(q), size=runs, p=q):
        counts[x if p[x] > tau else int(np.argmax(p))] += 1
    return counts / runs


print(f"{'simulated':<12}", simulate(p, q).round(3).tolist())
with learner.until_written():
    print(f"{learner.whose():<12}", rounded(typical_output_distribution(p, q, "greedy")))
print(f"{'target p':<12}", p.tolist())

# %% [markdown]
# ## The trade-off as ε moves (δ = √ε)
#
# A 20-token target with Zipf-like probabilities and a flatter draft. Left: the acceptance rate,
# beside exercise 01's exact rate Σ min(p, q). Right: the distance of the first token from p.
# With a sample from p on rejection the distance hardly moves; with the greedy token a stricter
# threshold pushes the output further from p.

# %%
ranks = np.arange(1, 21)
p20 = ranks ** -1.2 / (ranks ** -1.2).sum()
q20 = ranks ** -0.8 / (ranks ** -0.8).sum()
epsilons = np.linspace(0.0, 0.3, 31)

with learner.until_written():
    rates = [typical_acceptance_rate(p20, q20, e, math.sqrt(e)) for e in epsilons]
    distances = {mode: [total_variation(typical_output_distribution(p20, q20, mode, e, math.sqrt(e)), p20)
                        for e in epsilons] for mode in ("greedy", "sample")}
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    left.plot(epsilons, rates, label="typical acceptance")
    left.axhline(np.minimum(p20, q20).sum(), color="k", linestyle="--", label="exact rule, Σ min(p, q)")
    left.set_xlabel("ε (δ = √ε)")
    left.set_ylabel("acceptance rate")
    left.legend(fontsize=8)
    for mode, values in distances.items():
        right.plot(epsilons, values, label=f"on rejection: {mode}")
    right.set_xlabel("ε (δ = √ε)")
    right.set_ylabel("TV(first token, p)")
    right.legend(fontsize=8)
    plt.show()
    print("at Medusa's defaults (ε = 0.09, δ = 0.3): rate", round(typical_acceptance_rate(p20, q20), 3),
          "TV (greedy)", round(total_variation(typical_output_distribution(p20, q20), p20), 3))
