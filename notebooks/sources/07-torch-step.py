# %% [markdown]
# # 07-torch-step, worked
#
# Exercise 01's rule on tensors, with a `torch.Generator` for its randomness and
# `torch.multinomial` for a replacement. This notebook walks the worked examples one decision at
# a time, shows how the grader replays a generator, and checks the output distribution over many
# runs. Theory: `theory/07-torch-step.md`. Exercise: `exercises/ex07_torch_step.py`.
#
# Notation: **p is the target** (`target_probs`), **q is the draft** (`draft_probs`).

# %%
import sys

import matplotlib.pyplot as plt
import torch

sys.path.insert(0, "../solutions")  # after solving, change to "../exercises" to run your own code
from ex07_torch_step import speculative_decode_step

draft_probs = torch.tensor([[0.1, 0.6, 0.1, 0.1, 0.1]])
target_probs = torch.tensor([[0.1, 0.6, 0.1, 0.1, 0.1], [0.2, 0.2, 0.2, 0.3, 0.1]])
draft_tokens = torch.tensor([1])

# %% [markdown]
# ## The decisions, one call at a time
#
# The rule makes exactly these calls on the generator: one `torch.rand(())` per accept test, then
# one `torch.multinomial(..., 1)` for the replacement or the bonus token. `walk` makes them in
# that order and says what each one decided.

# %%
def walk(draft_probs, target_probs, draft_tokens, seed, generator=None):
    generator = generator or torch.Generator().manual_seed(seed)
    tokens = []
    for i, x in enumerate(draft_tokens.tolist()):
        u = torch.rand((), generator=generator)
        ratio = float(target_probs[i, x] / draft_probs[i, x])
        if u < min(1.0, ratio):
            print(f"position {i}: u = {float(u):.4f} < min(1, p/q = {ratio:.4f}): accept token {x}")
            tokens.append(x)
            continue
        residual = torch.clamp(target_probs[i] - draft_probs[i], min=0.0)
        replacement = int(torch.multinomial(residual / residual.sum(), 1, generator=generator))
        print(f"position {i}: u = {float(u):.4f} >= min(1, p/q = {ratio:.4f}): reject token {x}")
        print(f"  replacement from the residual {[round(v, 3) for v in (residual / residual.sum()).tolist()]}: token {replacement}")
        return tokens + [replacement], i
    bonus = int(torch.multinomial(target_probs[len(tokens)], 1, generator=generator))
    print(f"all accepted: bonus token from target_probs[{len(tokens)}] = {[round(v, 3) for v in target_probs[len(tokens)].tolist()]}: token {bonus}")
    return tokens + [bonus], len(tokens)

print(walk(draft_probs, target_probs, draft_tokens, seed=0))
print(speculative_decode_step(draft_probs, target_probs, draft_tokens, torch.Generator().manual_seed(0)))

# %%
rejecting = target_probs.clone()
rejecting[0] = torch.tensor([0.3, 0.1, 0.2, 0.2, 0.2])
print(walk(draft_probs, rejecting, draft_tokens, seed=0))
print(speculative_decode_step(draft_probs, rejecting, draft_tokens, torch.Generator().manual_seed(0)))

# %% [markdown]
# ## How the grader replays a generator
#
# Two generators seeded alike: one goes to the function under test, one to an independent
# reference. Afterwards the tokens must agree, and so must the generators' states: a state that
# differs means a draw too many or too few, even when the tokens happen to agree. Here a longer
# draft, γ = 4, over a vocabulary of 6, for a few seeds, with a draft that roughly agrees with the
# target.

# %%
gen = torch.Generator().manual_seed(123)
p = torch.softmax(2 * torch.randn(5, 6, generator=gen), dim=-1)
q = torch.softmax(p[:4].log() + 0.7 * torch.randn(4, 6, generator=gen), dim=-1)  # a draft that roughly agrees
drafted = torch.multinomial(q, 1, generator=gen).squeeze(1)
print("draft tokens:", drafted.tolist(), "\n")
for seed in range(3):
    reference_generator, tested_generator = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    expected = walk(q, p, drafted, seed, reference_generator)
    tokens, accepted = speculative_decode_step(q, p, drafted, tested_generator)
    same_state = torch.equal(reference_generator.get_state(), tested_generator.get_state())
    print(f"seed {seed}: solution {tokens.tolist()} ({accepted} accepted), walk {expected[0]}; same generator state: {same_state}\n")

# %% [markdown]
# ## Many steps: the first token is distributed as p[0]
#
# Drafts are sampled from q, as a real draft model would, and every step continues the same
# generator. Beside the exact rule, the tempting shortcut (resample a rejection from p instead of
# the residual) gives too much to every token the draft over-proposes (q > p), and too little to
# the under-proposed tokens with q < α·p (theory/06-exactness-proof.md §3).

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

exact = first_token_frequencies(speculative_decode_step)
shortcut = first_token_frequencies(shortcut_step)
print("target p[0]         ", [round(v, 3) for v in p[0].tolist()])
print("exact rule          ", [round(v, 3) for v in exact.tolist()])
print("shortcut (biased)   ", [round(v, 3) for v in shortcut.tolist()])
print("total variation from p[0]: exact", round(0.5 * float((exact - p[0]).abs().sum()), 4),
      " shortcut", round(0.5 * float((shortcut - p[0]).abs().sum()), 4))

tokens = torch.arange(6)
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.27, p[0], width=0.27, label="target p[0]")
ax.bar(tokens, exact, width=0.27, label="exact rule, 10,000 steps")
ax.bar(tokens + 0.27, shortcut, width=0.27, label="shortcut, 10,000 steps")
ax.set_xticks(tokens.tolist())
ax.set_xlabel("first emitted token")
ax.set_ylabel("frequency")
ax.legend(fontsize=8)
plt.show()
