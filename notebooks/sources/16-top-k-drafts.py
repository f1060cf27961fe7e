# %% [markdown]
# # 16-top-k-drafts, worked
#
# The draft proposes its top k tokens, every time, and the verifier tries them one by one. This
# notebook runs your `verify_top_k` (from `exercises/ex16_top_k_drafts.py`) on the worked example,
# then thousands of times against the target, beside the tempting shortcut that plugs the draft's
# probabilities into min(1, p/q). Theory: `theory/16-top-k-drafts.md`.
#
# Notation: **p is the target**, **q is the draft**.

# %%
import matplotlib.pyplot as plt
import numpy as np

import learner
from speckata import ReplayRNG, sample

# Yours: "not written yet" (with the expected values) while it is the stub. Save your file, then
# run the cells again.
verify_top_k = learner.yours("ex16_top_k_drafts", "verify_top_k")

# %% [markdown]
# ## The worked example
#
# p = [0.5, 0.25, 0.125, 0.125]; the draft's top 2 are tokens 1 and 2. Candidate 1 is accepted
# with chance p(1) = 0.25. If it is rejected, what is left of p is [0.5, 0, 0.125, 0.125] (mass
# 0.75), so candidate 2 gets chance 0.125 / 0.75 = 1/6. If that fails too, the token comes from
# [0.5, 0, 0, 0.125] normalised, [0.8, 0, 0, 0.2]: with u = 0.7, token 0.

# %%
p = np.array([0.5, 0.25, 0.125, 0.125])
q = np.array([0.2, 0.4, 0.3, 0.1])


def token_and_draws(stream):
    rng = ReplayRNG(stream)
    return verify_top_k(p, [1, 2], q, rng), rng.draws


learner.compare(lambda: token_and_draws([0.1]), (1, 1))
learner.compare(lambda: token_and_draws([0.6, 0.1]), (2, 2))
learner.compare(lambda: token_and_draws([0.6, 0.5, 0.7]), (0, 3))

# %% [markdown]
# ## Many runs against p, and the shortcut
#
# The suite's statistical case: six tokens, the draft's top 3 as candidates. Each run gets fresh
# uniforms. The shortcut accepts a candidate with min(1, p(x)/q(x)) as if it had been sampled from
# q; it was not, and the draft's favourite comes out far too often.

# %%
p6 = np.array([0.30, 0.25, 0.15, 0.05, 0.15, 0.10])
q6 = np.array([0.40, 0.30, 0.20, 0.05, 0.03, 0.02])
top3 = list(np.argsort(-q6, kind="stable")[:3])


def shortcut(p, candidates, q, rng):  # biased: never use this
    left = p.copy()
    for x in candidates:
        if rng.random() < min(1.0, p[x] / q[x]):
            return int(x)
        left[x] = 0.0
    return sample(left, rng)


RUNS = 20_000


def frequencies(verify, runs=RUNS, seed=0):
    gen = np.random.default_rng(seed)
    counts = np.zeros(len(p6))
    for _ in range(runs):
        counts[verify(p6, top3, q6, gen)] += 1
    return counts / runs


biased = frequencies(shortcut)
yours = None
with learner.until_written():
    yours = frequencies(verify_top_k)
print(f"{'candidates':<22}", [int(x) for x in top3])
print(f"{'target p':<22}", p6.tolist())
if yours is not None:
    print(f"{learner.whose() + ' (exact rule)':<22}", yours.round(3).tolist())
print(f"{'shortcut (biased)':<22}", biased.round(3).tolist())

tokens = np.arange(len(p6))
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.27, p6, width=0.27, label="target p")
if yours is not None:
    ax.bar(tokens, yours, width=0.27, label=f"{learner.whose()}, {RUNS:,} runs")
ax.bar(tokens + 0.27, biased, width=0.27, label=f"min(1, p/q) shortcut, {RUNS:,} runs")
ax.set_xticks(tokens)
ax.set_xlabel("emitted token")
ax.set_ylabel("frequency")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## How often a candidate is accepted
#
# A rejected candidate is removed from p, so the final sample is never a candidate: a candidate
# comes out exactly when one was accepted. Since the token is distributed as p, the acceptance
# rate of a top-k draft is the target's mass on the draft's top k. Measured with your function
# for k = 1 to 6 (2,000 runs each: one standard error is at most 0.011), beside that sum:

# %%
def acceptance(verify, k, runs=2_000, seed=1):
    gen = np.random.default_rng(seed)
    candidates = list(np.argsort(-q6, kind="stable")[:k])
    hits = sum(verify(p6, candidates, q6, gen) in candidates for _ in range(runs))
    return hits / runs


print(f"{'k':>2}  {'p(top k)':>9}  {'accepted, ' + learner.whose():>16}")
with learner.until_written():
    for k in range(1, 7):
        mass = float(p6[np.argsort(-q6, kind="stable")[:k]].sum())
        print(f"{k:>2}  {mass:>9.2f}  {acceptance(verify_top_k, k):>16.3f}")
