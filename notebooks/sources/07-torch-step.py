# %% [markdown]
# # 07-torch-step, worked
#
# Exercise 01's rule on tensors, with a `torch.Generator` for its randomness and
# `torch.multinomial` for a replacement. This notebook walks the worked examples one decision at
# a time, shows how the grader replays a generator, and checks the output distribution over many
# runs. Theory: `theory/07-torch-step.md`. Exercise: `exercises/ex07_torch_step.py`.
#
# Notation: **p is the target** (`target_probs`), **q is the draft** (`draft_probs`). The cells
# run **your** `speculative_decode_step` from `exercises/ex07_torch_step.py` (through
# `notebooks/learner.py`): while your file is the stub they say "not written yet" beside the
# expected values; save your file and run them again.

# %%
import matplotlib.pyplot as plt
import torch

import learner

speculative_decode_step = learner.yours("ex07_torch_step", "speculative_decode_step")

draft_probs = torch.tensor([[0.1, 0.6, 0.1, 0.1, 0.1]])
target_probs = torch.tensor([[0.1, 0.6, 0.1, 0.1, 0.1], [0.2, 0.2, 0.2, 0.3, 0.1]])
draft_tokens = torch.tensor([1])

# %% [markdown]
# ## The decisions, one call at a time
#
# The rule makes exactly these calls on the generator: one `torch.rand(())` per accept test, then
# one `torch.multinomial(..., 1)` for the replacement or the bonus token. Here are the numbers the
# two worked examples need: the first uniforms a generator seeded with 0 hands out, and the ratio
# p/q of the drafted token.

# %%
generator = torch.Generator().manual_seed(0)
print("uniforms of seed 0, one torch.rand(()) call each:",
      [round(float(torch.rand((), generator=generator)), 4) for _ in range(3)])
rejecting = target_probs.clone()
rejecting[0] = torch.tensor([0.3, 0.1, 0.2, 0.2, 0.2])
for name, rows in (("target_probs", target_probs), ("rejecting", rejecting)):
    print(f"{name}: p/q of token 1 at position 0 = {float(rows[0, 1]):.4g} / {float(draft_probs[0, 1]):.4g} "
          f"= {float(rows[0, 1] / draft_probs[0, 1]):.4f}")

# %% [markdown]
# - With `target_probs`: u = 0.4963 < min(1, 1) accepts token 1. Every draft is kept, so the
#   bonus token comes from `torch.multinomial(target_probs[1], 1)`: token 1. Result
#   `(tensor([1, 1]), 1)`.
# - With `rejecting`: u = 0.4963 >= min(1, 0.1667) rejects token 1. The replacement comes from the
#   residual `torch.clamp(p[0] - q[0], min=0)` = [0.2, 0, 0.1, 0.1, 0.1], normalised
#   [0.4, 0, 0.2, 0.2, 0.2]: token 4. Result `(tensor([4]), 0)`: nothing after a rejection is drawn.

# %%
def tokens_and_accepted(target_rows):
    tokens, accepted = speculative_decode_step(draft_probs, target_rows, draft_tokens, torch.Generator().manual_seed(0))
    return tokens.tolist(), accepted

learner.compare(lambda: tokens_and_accepted(target_probs), ([1, 1], 1))
learner.compare(lambda: tokens_and_accepted(rejecting), ([4], 0))

# %% [markdown]
# ## How the grader replays a generator
#
# Two generators seeded alike: one goes to the function under test, one to an independent
# reference. Afterwards the tokens must agree, and so must the generators' states: a state that
# differs means a draw too many or too few, even when the tokens happen to agree. Here a longer
# draft, γ = 4, over a vocabulary of 6, for a few seeds, with a draft that roughly agrees with the
# target. The ratios and each seed's uniforms are below: make the decisions, then compare.

# %%
gen = torch.Generator().manual_seed(123)
p = torch.softmax(2 * torch.randn(5, 6, generator=gen), dim=-1)
q = torch.softmax(p[:4].log() + 0.7 * torch.randn(4, 6, generator=gen), dim=-1)  # a draft that roughly agrees
drafted = torch.multinomial(q, 1, generator=gen).squeeze(1)
gamma = len(drafted)
print("draft tokens:", drafted.tolist())
print("p/q of each:  ", [round(float(p[i, x] / q[i, x]), 4) for i, x in enumerate(drafted.tolist())])
for seed in range(3):
    generator = torch.Generator().manual_seed(seed)
    print(f"seed {seed} uniforms:", [round(float(torch.rand((), generator=generator)), 4) for _ in range(gamma)])
print()


def advanced_by_the_contract(seed, accepted):
    """A generator seeded alike, advanced by exactly the calls the contract makes when `accepted` drafts are kept."""
    generator = torch.Generator().manual_seed(seed)
    for _ in range(min(accepted + 1, gamma)):  # one uniform per accept test
        torch.rand((), generator=generator)
    row = p[gamma] if accepted == gamma else torch.clamp(p[accepted] - q[accepted], min=0.0)
    torch.multinomial(row / row.sum(), 1, generator=generator)  # the replacement or the bonus token
    return generator


def replayed(seed, expected_accepted):
    """Your tokens and accepted count, and whether your generator ends where the contract's calls leave it."""
    tested_generator = torch.Generator().manual_seed(seed)
    tokens, accepted = speculative_decode_step(q, p, drafted, tested_generator)
    same_state = torch.equal(tested_generator.get_state(), advanced_by_the_contract(seed, expected_accepted).get_state())
    return tokens.tolist(), accepted, same_state

for seed, expected in enumerate([([1, 2], 1), ([0], 0), ([0], 0)]):
    print(f"seed {seed}: (tokens, accepted, same generator state)")
    learner.compare(lambda: replayed(seed, expected[1]), (*expected, True))

# %% [markdown]
# ## Many steps: the first token is distributed as p[0]
#
# Drafts are sampled from q, as a real draft model would, and every step continues the same
# generator. Beside the exact rule, the tempting shortcut (resample a rejection from p instead of
# the residual) gives too much to every token the draft over-proposes (q > p), and too little to
# the under-proposed tokens with q < α·p (theory/06-exactness-proof.md §3).
# Until your `speculative_decode_step` is written, only the shortcut runs.

# %%
def first_token_frequencies(step, runs=10_000, seed=0):
    generator = torch.Generator().manual_seed(seed)
    counts = torch.zeros(6)
    for _ in range(runs):
        draft = torch.multinomial(q, 1, generator=generator).squeeze(1)
        counts[step(q, p, draft, generator)[0][0]] += 1
    return counts / runs

def shortcut_step(draft_probs, target_probs, draft_tokens, generator):  # biased: never use this
    x = int(draft_tokens[0])
    if torch.rand((), generator=generator) < target_probs[0, x] / draft_probs[0, x]:
        return torch.tensor([x]), 1
    return torch.multinomial(target_probs[0], 1, generator=generator), 0

shortcut = first_token_frequencies(shortcut_step)
exact = None
with learner.until_written():
    exact = first_token_frequencies(speculative_decode_step)
print(f"{'target p[0]':<24}", [round(v, 3) for v in p[0].tolist()])
if exact is not None:
    print(f"{'exact rule (' + learner.whose() + ')':<24}", [round(v, 3) for v in exact.tolist()])
print(f"{'shortcut (biased)':<24}", [round(v, 3) for v in shortcut.tolist()])
distances = {"exact": exact, "shortcut": shortcut}
print("total variation from p[0]:", ", ".join(f"{name} {round(0.5 * float((frequencies - p[0]).abs().sum()), 4)}"
                                              for name, frequencies in distances.items() if frequencies is not None))

tokens = torch.arange(6)
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.27, p[0], width=0.27, label="target p[0]")
if exact is not None:
    ax.bar(tokens, exact, width=0.27, label=f"{learner.whose()} exact rule, 10,000 steps")
ax.bar(tokens + 0.27, shortcut, width=0.27, label="shortcut, 10,000 steps")
ax.set_xticks(tokens.tolist())
ax.set_xlabel("first emitted token")
ax.set_ylabel("frequency")
ax.legend(fontsize=8)
plt.show()
