# %% [markdown]
# # 04-greedy-step, worked
#
# Greedy verification is exercise 01's rule on one-hot rows: this notebook runs both on the same
# cases and finds them identical, whatever uniforms the exact rule draws.
# Theory: `theory/04-greedy-step.md`. Exercise: `exercises/ex04_greedy_step.py`.
#
# Notation: **p is the target**, **q is the draft**. The cells use the reference solutions in
# `solutions/`; change `"../solutions"` to `"../exercises"` to run your own code.

# %%
import sys

import numpy as np

sys.path.insert(0, "../solutions")
from ex01_speculative_step import speculative_step
from ex04_greedy_step import greedy_step

p = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
q = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
print("argmax p per position:", p.argmax(axis=1).tolist())
for draft in ([1, 2], [0, 2], [1, 0]):
    print(f"draft {draft} -> greedy_step gives {greedy_step(p, q, draft)}")

# %% [markdown]
# ## The same as exercise 01 with one-hot rows
#
# Replace every row by a one-hot vector (the target's argmax for p, the drafted token for q) and
# run exercise 01's random rule with a real random generator. The ratio p/q is 0 or 1, so the
# uniforms never matter.

# %%
def one_hot(tokens, vocab):
    return np.eye(vocab)[list(tokens)].reshape(len(tokens), vocab)

gen = np.random.default_rng(4)
vocab, agree, cases = 6, 0, 2000
for _ in range(cases):
    gamma = int(gen.integers(0, 6))
    p_rows = gen.dirichlet(np.ones(vocab), size=gamma + 1)
    q_rows = gen.dirichlet(np.ones(vocab), size=gamma)
    draft = [int(gen.choice(vocab, p=row)) for row in q_rows]
    exact_rule = speculative_step(one_hot(p_rows.argmax(axis=1), vocab), one_hot(draft, vocab), draft, gen)
    agree += exact_rule == greedy_step(p_rows, q_rows, draft)
print(f"{agree} of {cases} random cases agree")

# %% [markdown]
# ## Accepted tokens per step
#
# Under greedy decoding a draft's proposal survives exactly when the two argmaxes agree. With a
# draft that matches the target's argmax with probability a at each position, the number of
# tokens per step is 1 + (the leading run of agreements), the same geometric law as exercise 03
# with α = a.

# %%
a, gamma, runs = 0.7, 4, 20_000
lengths = []
for _ in range(runs):
    targets = gen.integers(0, vocab, size=gamma + 1)
    draft = [int(t) if gen.random() < a else int((t + 1) % vocab) for t in targets[:gamma]]
    p_rows = one_hot(targets, vocab) * 0.5 + 0.5 / vocab  # argmax at the target's choice
    q_rows = np.full((gamma, vocab), 1 / vocab)
    lengths.append(len(greedy_step(p_rows, q_rows, draft)))
print("mean tokens per step:", round(float(np.mean(lengths)), 3), " formula:", round(sum(a**k for k in range(gamma + 1)), 3))
