# %% [markdown]
# # 08-batched-verifier, worked
#
# A batch of B sequences, each with γ drafts, verified at once: the accept mask, the prefix each
# row keeps, the padding, and the one token per row sampled at its rejection position. Then the
# two costs of the batch-minimum shortcut (tokens per pass and bias), and a quick timing.
# Theory: `theory/08-batched-verifier.md`. Exercise: `exercises/ex08_batched_verifier.py`.
#
# Notation: **p is the target** (`target_probs`, (B, γ+1, V)), **q is the draft** (`draft_probs`,
# (B, γ, V)).

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import torch

import learner
from speckata import ReplayRNG

# Yours, from exercises/ex08_batched_verifier.py ("not written yet" while it is the stub) ...
speculative_step_batched = learner.yours("ex08_batched_verifier", "speculative_step_batched")
# ... and the reference solutions of the earlier exercises this notebook builds on.
speculative_step = learner.reference("ex01_speculative_step", "speculative_step")
speculative_decode_step = learner.reference("ex07_torch_step", "speculative_decode_step")

# %% [markdown]
# ## One batch, drawn
#
# Ten rows, γ = 6, a vocabulary of 12; the draft roughly agrees with the target, so rows accept
# different numbers of drafts. The contract's uniforms are drawn again here (same seed, same
# calls), and each row's decisions are made one at a time, as exercise 01 makes them: the accept
# mask, the prefix each row keeps, and the tokens the batch must produce. Doing the same in a
# handful of whole-tensor operations is the exercise.

# %%
B, gamma, V, seed = 10, 6, 12, 3
gen = torch.Generator().manual_seed(0)
target_probs = torch.softmax(2 * torch.randn(B, gamma + 1, V, generator=gen, dtype=torch.float64), dim=-1)
draft_probs = torch.softmax(target_probs[:, :gamma].log() + torch.randn(B, gamma, V, generator=gen, dtype=torch.float64), dim=-1)
draft_tokens = torch.multinomial(draft_probs.reshape(-1, V), 1, generator=gen).reshape(B, gamma)

replay = torch.Generator().manual_seed(seed)
u = torch.rand((B, gamma), generator=replay, dtype=torch.float64)
v = torch.rand((B,), generator=replay, dtype=torch.float64)
accept = torch.zeros(B, gamma, dtype=torch.bool)
kept = []
expected = []  # row b: exercise 01 on row b's uniforms, padded with -1
for b in range(B):
    for j in range(gamma):
        x = int(draft_tokens[b, j])
        accept[b, j] = bool(u[b, j] < target_probs[b, j, x] / draft_probs[b, j, x])
    k = next((j for j in range(gamma) if not accept[b, j]), gamma)
    kept.append(k)
    stream = u[b, : min(k + 1, gamma)].tolist() + [float(v[b])]
    row = speculative_step(target_probs[b].numpy(), draft_probs[b].numpy(), draft_tokens[b].tolist(), ReplayRNG(stream))
    expected.append(row + [-1] * (gamma + 1 - len(row)))
prefix = torch.tensor([[int(j < k) for j in range(gamma)] for k in kept])

learner.compare(lambda: speculative_step_batched(target_probs, draft_probs, draft_tokens,
                                                 torch.Generator().manual_seed(seed)).num_accepted.tolist(), kept)
learner.compare(lambda: speculative_step_batched(target_probs, draft_probs, draft_tokens,
                                                 torch.Generator().manual_seed(seed)).tokens.tolist(), expected)

fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
axes[0].imshow(accept.numpy(), cmap="Greens", vmin=0, vmax=1.4)
axes[0].set_title("accept mask: u < p/q")
axes[1].imshow(prefix.numpy(), cmap="Blues", vmin=0, vmax=1.4)
axes[1].set_title("prefix each row keeps")
tokens = np.array(expected)
shown = np.where(tokens >= 0, 1.0, 0.0)
shown[np.arange(B), kept] = 0.55
axes[2].imshow(shown, cmap="Oranges", vmin=0, vmax=1.2)
for b in range(B):
    for j in range(gamma + 1):
        axes[2].text(j, b, str(int(tokens[b, j])), ha="center", va="center", fontsize=7)
axes[2].set_title("expected tokens: drafts, last token, -1")
for ax, width in zip(axes, (gamma, gamma, gamma + 1)):
    ax.set_xticks(range(width))
    ax.set_xlabel("position")
    ax.set_ylabel("row")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Every row is exercise 01
#
# The expected rows above are exactly exercise 01's `speculative_step` fed the uniforms
# u[b, :k+1] (or u[b, :γ] when all are accepted) and then v[b]: that is how the grader checks
# your batched verifier, row by row.

# %% [markdown]
# ## The batch-minimum shortcut: tokens per pass
#
# Cutting every row to the batch's smallest accepted count keeps the batch rectangular, but with
# acceptance rate α per position a row keeps only 1 + Σ_j α^(jB) tokens per pass instead of
# (1 − α^(γ+1)) / (1 − α). Formula and a simulation of 4,000 passes, α = 0.8, γ = 4.

# %%
alpha, gamma_sim = 0.8, 4
batches = [1, 2, 4, 8, 16, 32, 64]
own = (1 - alpha ** (gamma_sim + 1)) / (1 - alpha)
minimum = [1 + sum(alpha ** (j * b) for j in range(1, gamma_sim + 1)) for b in batches]
g = torch.Generator().manual_seed(0)
measured_own, measured_min = [], []
for b in batches:
    k = (torch.rand((4000, b, gamma_sim), generator=g) < alpha).long().cumprod(dim=2).sum(dim=2)
    measured_own.append(float((k + 1).double().mean()))
    measured_min.append(float((k.min(dim=1).values + 1).double().mean()))
for b, m, mo, mm in zip(batches, minimum, measured_own, measured_min):
    print(f"B = {b:>2}: own prefix {own:.3f} (measured {mo:.3f}), batch minimum {m:.3f} (measured {mm:.3f})")

fig, ax = plt.subplots(figsize=(7, 3.2))
ax.plot(batches, [own] * len(batches), "-", label="every row its own prefix (formula)")
ax.plot(batches, measured_own, "o", label="own prefix, simulated")
ax.plot(batches, minimum, "-", label="batch minimum (formula)")
ax.plot(batches, measured_min, "s", label="batch minimum, simulated")
ax.set_xscale("log", base=2)
ax.set_xlabel("batch size B")
ax.set_ylabel("tokens per row per target pass")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## ... and its bias when it resamples from p
#
# Resampling every row at the batch minimum from p leaves the tokens before it as accepted
# drafts only, distributed as min(p, q)/α. The first token's distance from p is
# α^(B−1) · ½ Σ |min(p, q) − α p|: largest at B = 1 (exercise 01's shortcut) and fading only as
# the drafts stop being used at all. (Below about 0.002 the simulation measures only its own noise.)

# %%
p0 = torch.tensor([0.2, 0.5, 0.3], dtype=torch.float64)
q0 = torch.tensor([0.5, 0.3, 0.2], dtype=torch.float64)
overlap = torch.minimum(p0, q0)
a0 = float(overlap.sum())
bias_formula = [a0 ** (b - 1) * 0.5 * float((overlap - a0 * p0).abs().sum()) for b in batches]
g = torch.Generator().manual_seed(1)
bias_measured = []
n = 100_000
for b in batches:
    drafts = torch.multinomial(q0, n * b, replacement=True, generator=g).reshape(n, b)
    all_accept = (torch.rand((n, b), generator=g, dtype=torch.float64) < (p0 / q0)[drafts]).all(dim=1)
    fresh = torch.multinomial(p0, n, replacement=True, generator=g)
    first = torch.where(all_accept, drafts[:, 0], fresh)
    bias_measured.append(0.5 * float((torch.bincount(first, minlength=3) / n - p0).abs().sum()))
for b, f, m in zip(batches, bias_formula, bias_measured):
    print(f"B = {b:>2}: total variation of the first token from p: formula {f:.4f}, measured {m:.4f}")

fig, ax = plt.subplots(figsize=(7, 3.2))
ax.plot(batches, bias_formula, "-", label="formula")
ax.plot(batches, bias_measured, "o", label=f"simulated, {n:,} batches")
ax.set_xscale("log", base=2)
ax.set_xlabel("batch size B")
ax.set_ylabel("TV(first token, p)")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## A quick timing (the full benchmark: `python -m speckata.bench verify`)
#
# B = 64 rows over a vocabulary of 8,000, float32: your batched verifier against a Python loop of
# exercise 07 (the reference) over the rows. The batched time hardly moves with γ: it samples one row per batch
# element whatever γ is. Times vary from run to run on a shared machine; the ratios are the point.

# %%
def fastest(functions, repeats):
    """The fastest of `repeats` calls of each function, in ms; the functions take turns."""
    best = {name: float("inf") for name in functions}
    for function in functions.values():
        function()
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            best[name] = min(best[name], (time.perf_counter() - start) * 1e3)
    return best

gen = torch.Generator().manual_seed(0)
inputs = {}
for g_len in (2, 4, 8, 16):
    logits = 2 * torch.randn(64, g_len + 1, 8000, generator=gen)
    t_probs = torch.softmax(logits, dim=-1)
    d_probs = torch.softmax(logits[:, :g_len] + 0.6 * torch.randn(64, g_len, 8000, generator=gen), dim=-1)
    d_tokens = torch.multinomial(d_probs.reshape(-1, 8000), 1, generator=gen).reshape(64, g_len)
    inputs[g_len] = (t_probs, d_probs, d_tokens)

def batched_call(g_len):
    return lambda: speculative_step_batched(*inputs[g_len], gen)

def loop_call(g_len):
    t_probs, d_probs, d_tokens = inputs[g_len]
    return lambda: [speculative_decode_step(d_probs[b], t_probs[b], d_tokens[b], gen) for b in range(64)]

with learner.until_written():
    batched_ms = fastest({g_len: batched_call(g_len) for g_len in inputs}, repeats=40)
    loop_ms = fastest({g_len: loop_call(g_len) for g_len in inputs}, repeats=4)
    for g_len in inputs:
        print(f"γ = {g_len:>2}: {learner.whose()} batched {batched_ms[g_len]:6.2f} ms, loop of exercise 07 "
              f"{loop_ms[g_len]:7.1f} ms, ratio {loop_ms[g_len] / batched_ms[g_len]:5.1f}x")
