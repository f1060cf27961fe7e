# %% [markdown]
# # 04-greedy-step, worked
#
# Greedy verification is exercise 01's rule on one-hot rows: this notebook runs both on the same
# cases and finds them identical, whatever uniforms the exact rule draws.
# Theory: `theory/04-greedy-step.md`. Exercise: `exercises/ex04_greedy_step.py`.
#
# Notation: **p is the target**, **q is the draft**. The cells run **your** `greedy_step` from
# `exercises/ex04_greedy_step.py` (through `notebooks/learner.py`): while your file is the stub
# they say "not written yet" beside the expected values; save your file and run them again.
# Exercise 01's rule comes from its reference solution.

# %%
import numpy as np

import learner

greedy_step = learner.yours("ex04_greedy_step", "greedy_step")  # yours
speculative_step = learner.reference("ex01_speculative_step", "speculative_step")  # exercise 01, the reference

p = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
q = np.array([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
print("argmax p per position:", p.argmax(axis=1).tolist(), end="\n\n")
for draft, expected in (([1, 2], [1, 2, 2]), ([0, 2], [1]), ([1, 0], [1, 2])):
    print(f"greedy_step(p, q, {draft})")
    learner.compare(lambda: greedy_step(p, q, draft), expected)

# %% [markdown]
# ## The same as exercise 01 with one-hot rows
#
# Replace every row by a one-hot vector (the target's argmax for p, the drafted token for q) and
# run exercise 01's random rule with a real random generator. The ratio p/q is 0 or 1, so the
# uniforms never matter.

# %%
def one_hot(tokens, vocab):
    return np.eye(vocab)[list(tokens)].reshape(len(tokens), vocab)

def cases_that_agree(cases):
    agree = 0
    for _ in range(cases):
        gamma = int(gen.integers(0, 6))
        p_rows = gen.dirichlet(np.ones(vocab), size=gamma + 1)
        q_rows = gen.dirichlet(np.ones(vocab), size=gamma)
        draft = [int(gen.choice(vocab, p=row)) for row in q_rows]
        exact_rule = speculative_step(one_hot(p_rows.argmax(axis=1), vocab), one_hot(draft, vocab), draft, gen)
        agree += exact_rule == greedy_step(p_rows, q_rows, draft)
    return agree

gen = np.random.default_rng(4)
vocab = 6
print("random cases, of 2000, where exercise 01 on one-hot rows and greedy_step agree")
learner.compare(lambda: cases_that_agree(2000), 2000)

# %% [markdown]
# ## Accepted tokens per step
#
# Under greedy decoding a draft's proposal survives exactly when the two argmaxes agree. With a
# draft that matches the target's argmax with probability a at each position, the number of
# tokens per step is 1 + (the leading run of agreements), the same geometric law as exercise 03
# with α = a.

# %%
a, gamma, runs = 0.7, 4, 20_000
with learner.until_written():
    lengths = []
    for _ in range(runs):
        targets = gen.integers(0, vocab, size=gamma + 1)
        draft = [int(t) if gen.random() < a else int((t + 1) % vocab) for t in targets[:gamma]]
        p_rows = one_hot(targets, vocab) * 0.5 + 0.5 / vocab  # argmax at the target's choice
        q_rows = np.full((gamma, vocab), 1 / vocab)
        lengths.append(len(greedy_step(p_rows, q_rows, draft)))
    print(f"mean tokens per step ({learner.whose()}):", round(float(np.mean(lengths)), 3),
          " formula:", round(sum(a**k for k in range(gamma + 1)), 3))
