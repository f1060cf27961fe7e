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
# For each drafted token x at position i the rule draws u and accepts when u < p[i, x] / q[i, x].
# The stream is 0.6, 0.9, 0.2. Here are the numbers the two worked drafts need; the decisions are
# yours to make, then your `speculative_step` (from `exercises/ex01_speculative_step.py`) runs on
# them, beside the expected results.

# %%
for i, x in enumerate([1, 2]):
    print(f"draft [1, 2], position {i}: token {x}, p/q = {p[i, x]} / {q[i, x]} = {p[i, x] / q[i, x]:.3f}")
print(f"draft [0, 2], position 0: token 0, p/q = {p[0, 0]} / {q[0, 0]} = {p[0, 0] / q[0, 0]:.3f}")
print("p[0] - q[0] =", (p[0] - q[0]).round(3).tolist(), "  p[2] =", p[2].tolist())

# %% [markdown]
# - Draft [1, 2]: u = 0.6 < 1.667 accepts token 1; u = 0.9 < 1.333 accepts token 2; both kept, so
#   a bonus token comes from p[2] = [0.3, 0.3, 0.4] with u = 0.2, which falls in token 0's share.
#   Result [1, 2, 0] after 3 draws.
# - Draft [0, 2]: u = 0.6 >= 0.4 rejects token 0. The replacement comes from the residual
#   max(0, p[0] − q[0]) = [0, 0.2, 0.1], normalised [0, 2/3, 1/3]; u = 0.9 lands past 2/3, in
#   token 2's share. Result [2] after 2 draws: nothing after a rejection is drawn.

# %%
import learner

speculative_step = learner.yours("ex01_speculative_step", "speculative_step")

def tokens_and_draws(draft):
    rng = ReplayRNG(stream)
    return speculative_step(p, q, draft, rng), rng.draws

learner.compare(lambda: tokens_and_draws([1, 2]), ([1, 2, 0], 3))
learner.compare(lambda: tokens_and_draws([0, 2]), ([2], 2))

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
# Drafts are sampled from q, as a real draft model would, and each run goes through your
# exercise-01 rule. For comparison, the same runs with the tempting shortcut (resample a
# rejection from p instead of the residual) give too much to the tokens the draft over-proposes
# (here token 0), and too little to those with q < α·p. Until your `speculative_step` is
# written, only the shortcut runs.

# %%
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

shortcut = first_tokens(shortcut_step)
exact = None
with learner.until_written():
    exact = first_tokens(speculative_step)
print(f"{'target p[0]':<24}", p[0].tolist())
if exact is not None:
    print(f"{'exact rule (' + learner.whose() + ')':<24}", exact.round(3).tolist())
print(f"{'shortcut (biased)':<24}", shortcut.round(3).tolist())

fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.27, p[0], width=0.27, label="target p[0]")
if exact is not None:
    ax.bar(tokens, exact, width=0.27, label=f"{learner.whose()} exact rule, 20,000 runs")
ax.bar(tokens + 0.27, shortcut, width=0.27, label="shortcut, 20,000 runs")
ax.set_xticks(tokens)
ax.set_xlabel("first emitted token")
ax.set_ylabel("frequency")
ax.legend(fontsize=8)
plt.show()
