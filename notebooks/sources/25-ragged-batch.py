# %% [markdown]
# # 25-ragged-batch, worked
#
# The padding, mask and positions of one ragged pass; the batched decoder on two toy chains, round
# by round (what the target is fed, each row's crop, a row leaving the batch); then the kata's
# trained character models decoding 1 to 8 held-out windows at once: how many drafts each row
# accepts per round (they differ: that is why the batch is ragged) and how many tokens one target
# pass buys. Theory: `theory/25-ragged-batch.md`. Exercise: `exercises/ex25_ragged_batch.py`.
#
# The cells run **your** functions from `exercises/ex25_ragged_batch.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again. Notation: **p is the target**, **q is the draft**.

# %%
from collections import Counter

import matplotlib.pyplot as plt
import torch

import learner  # notebooks/learner.py: your functions, or "not written yet"
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import load_draft, load_target, text_windows
from speckata.models.recording import RecordingModel

torch.set_num_threads(1)

ragged_inputs = learner.yours("ex25_ragged_batch", "ragged_inputs")
batched_speculative_generate = learner.yours("ex25_ragged_batch", "batched_speculative_generate")

# %% [markdown]
# ## Task 1: one ragged pass
#
# Row 0 holds 3 tokens and is fed 1; row 1 holds 1 and is fed 3. The ids are padded with -1 to
# n = 3, the key slots run to max(L) + n - 1 = 5, and each real token sees its own row up to its
# own slot, L_b + i; padding sees nothing.

# %%
learner.compare(lambda: [t.int().tolist() for t in ragged_inputs([3, 1], [[2], [0, 1, 2]])],
                [[[2, -1, -1], [0, 1, 2]],
                 [[[1, 1, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]],
                  [[1, 1, 0, 0, 0, 0], [1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 0, 0]]],
                 [[3, 0, 0], [1, 2, 3]]])

# %% [markdown]
# ## The worked example, round by round
#
# Two prompts, [0] and [1, 2], 5 new tokens each, γ = 2. Round 1 feeds the target both prompts
# and both rows' drafts in one pass (row 0 padded by one). Row 0 rejects its first draft, row 1
# keeps one: the crop that follows is (1, 3), one length per row. After round 2 row 1 has its 5
# tokens and leaves the batch: in round 3 it is all padding, and only row 0 is decided.

# %%
target = RecordingModel(MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]))
draft = RecordingModel(MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]))


def worked_example():
    result = batched_speculative_generate(target, draft, [[0], [1, 2]], 5, 2, torch.Generator().manual_seed(1))
    return result.tokens, result.accepted_per_row, result.drafted_per_round


learner.compare(worked_example, ([[1, 1, 2, 1, 2], [0, 1, 1, 1, 2]], [[0, 2, 0], [1, 2]], [2, 2, 0]))
learner.compare(lambda: [(call[1], call[2]) for call in target.calls if call[0] == "rows"],
                [(((0, 0, 1, -1), (1, 2, 0, 0)), (0, 0)), (((1, 1, 2), (1, 1, 1)), (1, 3)), (((1,), (-1,)), (4, 6))])
learner.compare(lambda: [call[1] for call in target.calls if call[0] == "crop_rows"], [(1, 3), (4, 6), (5, 6)])

# %% [markdown]
# ## The trained models: rows accept different counts
#
# Eight held-out windows of 24 characters, 48 new tokens each, γ = 4, sampled at temperature 1
# (seed 0). Every round, each row's accepted count is its own; the histogram counts (row, round)
# pairs. Cutting every row to the batch's minimum would keep only the smallest count of each
# round.

# %%
big, small = load_target(), load_draft()
windows = text_windows("held_out", 24, limit=8).tolist()

with learner.until_written():
    result = batched_speculative_generate(big, small, windows, 48, 4, torch.Generator().manual_seed(0))
    counts = Counter(count for row in result.accepted_per_row for count in row)
    full = min(len(row) for row in result.accepted_per_row)
    per_round = torch.tensor([row[:full] for row in result.accepted_per_row])
    print(f"rounds with all 8 rows: {full}; tokens per row per round, own count: "
          f"{float((per_round + 1).double().mean()):.2f}, batch minimum: "
          f"{float((per_round.min(dim=0).values + 1).double().mean()):.2f}")
    plt.bar(list(range(5)), [counts[k] for k in range(5)])
    plt.xlabel("drafts accepted by one row in one round (gamma = 4)")
    plt.ylabel("(row, round) pairs")
    plt.show()

# %% [markdown]
# ## Tokens per target pass against the batch size
#
# The same windows, 1, 2, 4 and 8 at a time: new tokens of all rows over target passes. One pass
# serves every row, so this grows with B; what a pass costs as B grows is exercise 26's question.

# %%
with learner.until_written():
    sizes = [1, 2, 4, 8]
    per_pass = []
    for size in sizes:
        run = batched_speculative_generate(big, small, windows[:size], 48, 4, torch.Generator().manual_seed(0))
        per_pass.append(run.tokens_per_pass)
        print(f"B = {size}: {run.target_passes} target passes, {run.tokens_per_pass:.2f} tokens per pass")
    plt.plot(sizes, per_pass, marker="o")
    plt.xlabel("rows in the batch (B)")
    plt.ylabel("new tokens per target pass")
    plt.show()
