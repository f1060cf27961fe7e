# %% [markdown]
# # 01-speculative-step, worked
#
# The exercise's worked example, one decision at a time, then the picture behind the proof and
# an experiment: thousands of verify steps whose first token lands exactly on the target's
# distribution. Theory: `theory/01-speculative-step.md`. Exercise:
# `exercises/ex01_speculative_step.py`.
#
# Notation: **p is the target**, **q is the draft**.

# %%
import numpy as np
import matplotlib.pyplot as plt

from speckata import ReplayRNG, sample

p = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])  # target, (γ+1, V)
q = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])                    # draft,  (γ, V)
stream = [0.6, 0.9, 0.2]

# %% [markdown]
# ## The decisions, step by step
#
# For each drafted token x at position i we draw u and accept when u < p[i, x] / q[i, x]. The
# function below prints the table of decisions; it is the rule of the exercise written out
# long-hand for the two worked drafts.

# %%
def walk(draft, stream):
    rng = ReplayRNG(stream)
    print(f"draft {draft}, stream {stream}")
    print(f"{'pos':>3}  {'token':>5}  {'u':>5}  {'p/q':>6}  decision")
    tokens = []
    for i, x in enumerate(draft):
        u = rng.random()
        ratio = p[i, x] / q[i, x]
        if u < ratio:
            print(f"{i:>3}  {x:>5}  {u:>5}  {ratio:>6.3f}  accept")
            tokens.append(x)
            continue
        residual = np.maximum(p[i] - q[i], 0)
        replacement = sample(residual, rng)
        print(f"{i:>3}  {x:>5}  {u:>5}  {ratio:>6.3f}  reject -> residual {np.round(residual / residual.sum(), 3).tolist()} "
              f"with u = {stream[rng.draws - 1]} gives token {replacement}")
        tokens.append(replacement)
        break
    else:
        bonus = sample(p[len(draft)], rng)
        print(f"all accepted -> bonus from p[{len(draft)}] = {p[len(draft)].tolist()} with u = {stream[rng.draws - 1]}: token {bonus}")
        tokens.append(bonus)
    print(f"result {tokens} after {rng.draws} draws\n")

walk([1, 2], stream)
walk([0, 2], stream)

# %% [markdown]
# ## p, q and the residual at position 0
#
# The draft over-proposes token 0 (q > p) and under-proposes tokens 1 and 2. Accepting with
# probability min(1, p/q) delivers min(p, q) of each token; the residual max(0, p − q) is exactly
# what is still missing, and a rejection (probability 1 − Σ min(p, q) = 0.3 here) fills it.

# %%
residual = np.maximum(p[0] - q[0], 0)
tokens = np.arange(3)
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.27, p[0], width=0.27, label="p[0] (target)")
ax.bar(tokens, q[0], width=0.27, label="q[0] (draft)")
ax.bar(tokens + 0.27, residual / residual.sum(), width=0.27, label="residual, normalised")
ax.plot(tokens, np.minimum(p[0], q[0]), "k_", markersize=30, label="min(p, q): delivered by acceptance")
ax.set_xticks(tokens)
ax.set_xlabel("token")
ax.set_ylabel("probability")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## Many runs against p
#
# Drafts are sampled from q, as a real draft model would, and each run goes through the
# exercise-01 rule. This cell uses the **reference solution** in `solutions/`; once you have
# solved the exercise, change `"../solutions"` to `"../exercises"` to see your own code here.
#
# For comparison, the same runs with the tempting shortcut (resample a rejection from p instead of
# the residual) drift towards the draft.

# %%
import sys

sys.path.insert(0, "../solutions")
from ex01_speculative_step import speculative_step

def first_tokens(step, runs=20_000, seed=0):
    gen = np.random.default_rng(seed)
    counts = np.zeros(3)
    for _ in range(runs):
        draft = [int(gen.choice(3, p=row)) for row in q]
        counts[step(p, q, draft, gen)[0]] += 1
    return counts / runs

def shortcut_step(p, q, draft, rng):  # the biased variant: never use this
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            return [x]
        return [sample(p[i], rng)]

exact = first_tokens(speculative_step)
shortcut = first_tokens(shortcut_step)
print("target p[0]        ", p[0].tolist())
print("exact rule         ", exact.round(3).tolist())
print("shortcut (biased)  ", shortcut.round(3).tolist())

fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.27, p[0], width=0.27, label="target p[0]")
ax.bar(tokens, exact, width=0.27, label="exact rule, 20,000 runs")
ax.bar(tokens + 0.27, shortcut, width=0.27, label="shortcut, 20,000 runs")
ax.set_xticks(tokens)
ax.set_xlabel("first emitted token")
ax.set_ylabel("frequency")
ax.legend(fontsize=8)
plt.show()
