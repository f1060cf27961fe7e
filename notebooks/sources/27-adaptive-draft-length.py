# %% [markdown]
# # 27-adaptive-draft-length, worked
#
# The two rules that choose a round's draft length, one decision at a time, then the decoder on
# the exercise's toy chains, the probe that gets rule (b) out of gamma 0, then what rule (b) does
# with a modelled GPU's cost table as the batch grows, and the committed measurements on the
# shipped models (one batch kind at a time, then a mixed workload). Theory:
# `theory/27-adaptive-draft-length.md`. Exercise: `exercises/ex27_adaptive_draft_length.py`.
#
# The cells run **your** functions (through notebooks/learner.py): while your file is the stub
# they say "not written yet" beside the expected values; save your file and run them again.
# Notation: **p is the target**, **q is the draft**.

# %%
import json
import statistics

import matplotlib.pyplot as plt
import torch

import learner

plt.rcParams.update({"figure.dpi": 110, "font.size": 11, "legend.fontsize": 10})  # legible at the page's width
from speckata.manifest import repo_root
from speckata.models.markov import MarkovModel
from speckata.roofline import modelled_draft_cost, modelled_target_cost

torch.set_num_threads(1)
keep_drafting = learner.yours("ex27_adaptive_draft_length", "keep_drafting")
update_acceptance = learner.yours("ex27_adaptive_draft_length", "update_acceptance")
next_gamma = learner.yours("ex27_adaptive_draft_length", "next_gamma")
adaptive_speculative_generate = learner.yours("ex27_adaptive_draft_length", "adaptive_speculative_generate")

# %% [markdown]
# ## Rule (a): the batch stops when every row is unsure
#
# Two rows have drawn their drafts; their path confidences are the products of the draft's
# probabilities of the tokens they drew. With threshold 0.27 the batch drafts again while ONE row
# is at or above it, and stops only when both are below. A tie keeps drafting.

# %%
learner.compare(lambda: keep_drafting([0.3 * 0.6, 0.4], 0.27), True)
learner.compare(lambda: keep_drafting([0.3 * 0.6, 0.1], 0.27), False)
learner.compare(lambda: keep_drafting([0.27], 0.27), True)

# %% [markdown]
# ## Rule (b), the estimate: kept over tested
#
# A round of k = 4 drafts whose three rows kept 2, 0 and 4: the rows tested 3, 1 and 4 drafts
# (up to and including the first rejection), 6 of 8 passed. With beta = 0.5 the estimate moves
# half way from 0.5 to 0.75. A round without drafts tests nothing.

# %%
learner.compare(lambda: update_acceptance(0.5, [2, 0, 4], 4, 0.5), 0.625)
learner.compare(lambda: update_acceptance(0.5, [0, 0], 0, 0.5), 0.5)

# %% [markdown]
# ## Rule (b), the length: exercise 26's best gamma in the active rows' row
#
# The worked example's table: one row verifies any number of tokens for 10; two rows pay 2 per
# extra token; a draft pass costs 1. Three rows read the two-row row (the largest batch size not
# above them).

# %%
costs = ([[10, 10, 10, 10], [10, 12, 14, 16]], [1, 1], [1, 2])
learner.compare(lambda: [next_gamma(alpha, 2, *costs) for alpha in (0.2, 0.5, 0.7, 0.9)], [0, 1, 2, 3])
learner.compare(lambda: [next_gamma(0.5, rows, *costs) for rows in (1, 2, 3)], [2, 1, 1])

# %% [markdown]
# ## The decoder on the toy chains
#
# The same prompts and seed three times: exercise 25's decoder with gamma 3, rule (a) alone, and
# both rules. `drafted_per_round` is each round's k after the rules.

# %%
def chains():
    return (MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]),
            MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]))


def rounds(**rules):
    result = adaptive_speculative_generate(*chains(), [[0], [1, 2]], 8, 3, torch.Generator().manual_seed(6), **rules)
    return result.drafted_per_round


learner.compare(lambda: rounds(), [3, 3, 2])
learner.compare(lambda: rounds(threshold=0.27), [2, 2, 2, 1])
learner.compare(lambda: rounds(threshold=0.27, costs=costs), [1, 2, 2, 1])

# %% [markdown]
# ## The probe: out of the gamma-0 lock (Task 9)
#
# A table where drafting pays only above an acceptance rate of 0.5 for one row and 0.7 for two,
# and an estimate starting at 0.4: rule (b) says gamma 0, a round of k = 0 tests nothing, and the
# estimate never moves again. With `probe_every=2`, after two rounds at gamma 0 the next round
# that rule (b) would also run at 0 drafts one token instead; its verdict moves the estimate.

# %%
dear = ([[10, 14, 18, 22], [10, 16, 22, 28]], [1, 1], [1, 2])


def probed(probe_every):
    result = adaptive_speculative_generate(*chains(), [[0], [1, 2]], 10, 3, torch.Generator().manual_seed(6),
                                           costs=dear, initial_alpha=0.4, probe_every=probe_every)
    return result.drafted_per_round


learner.compare(lambda: probed(None), [0] * 10)
learner.compare(lambda: probed(2), [0, 0, 1, 0, 0, 1, 1, 0])

# %% [markdown]
# ## Rule (b) on a modelled GPU
#
# speckata.roofline models an H100 running Llama-3-8B with a Llama-3.2-1B draft (a model, not a
# measurement). At 1024 cached tokens per row, the gamma rule (b) picks for each batch size and
# acceptance rate: long drafts at one row, shorter as the batch grows and verification becomes
# compute-bound.

# %%
sizes = [1, 4, 16, 64, 256]
gpu = (modelled_target_cost(sizes, 9, [1024])[:, :, 0].tolist(), modelled_draft_cost(sizes, [1024])[:, 0].tolist(), sizes)
with learner.until_written():
    for alpha in (0.5, 0.7, 0.9):
        print(f"alpha {alpha}: gamma at B = {sizes}: {[next_gamma(alpha, B, *gpu) for B in sizes]}")

# %% [markdown]
# ## Measured on the shipped models
#
# The committed run of `python -m speckata.bench adaptive` (10 seed sets, 64 tokens per row, the
# cost of each round read from exercise 26's measured table): tokens per ms of table cost for
# every fixed gamma, plain decoding and the rules, at 1 and 16 rows. The rules stay close to the
# best fixed gamma (chosen in hindsight) at both sizes, while the best fixed gamma itself moves.

# %%
record = json.loads((repo_root() / "speckata/bench/results/adaptive-shipped.json").read_text())
fig, axes = plt.subplots(2, 1, figsize=(7, 7))
for axis, (B, figure) in zip(axes, record["figures"].items()):
    names = list(figure["tokens_per_ms"])
    medians = [statistics.median(figure["tokens_per_ms"][name]) for name in names]
    axis.bar(range(len(names)), medians, color=["tab:orange" if name.startswith("rule") else "tab:blue" for name in names])
    axis.set_xticks(range(len(names)), [name.replace("fixed ", "") for name in names], rotation=40, ha="right")
    axis.set_title(f"B = {B} rows")
    axis.set_ylabel("tokens per ms of table cost")
    print(f"B = {B}: best fixed {figure['best_fixed']}; rules (a)+(b) x"
          f"{statistics.median(figure['gain']['rules (a)+(b)']):.3f} of it (median over seed sets)")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## A mixed workload
#
# `python -m speckata.bench adaptive_mixed`: batches of 1, 1, 8 and 16 rows, where half the rows of
# a batch continue an underline of asterisks (drafts kept, then prose) beside rows of prose, and
# one fixed gamma must serve the whole workload. Per evaluation seed set, each decoder's figure
# over that seed set's best fixed gamma in hindsight (1 = as good), and over plain decoding; the
# rules' settings were chosen on hold-out seed sets.

# %%
mixed = json.loads((repo_root() / "speckata/bench/results/adaptive-mixed.json").read_text())
evaluation = mixed["evaluation"]
names = list(evaluation["over_best_fixed"])
fig, ax = plt.subplots(figsize=(7, 4))
for offset, (key, label) in zip((-0.2, 0.2), (("over_best_fixed", "over the best fixed gamma"), ("over_plain", "over plain"))):
    values = [evaluation[key][name] for name in names]
    ax.bar([i + offset for i in range(len(names))], [statistics.median(v) for v in values], width=0.4, label=label,
           yerr=[[statistics.median(v) - min(v) for v in values], [max(v) - statistics.median(v) for v in values]], capsize=3)
ax.axhline(1.0, color="black", linewidth=0.8)
ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
ax.set_ylabel("ratio of tokens per ms (median, min .. max)")
ax.set_ylim(0.8, None)
ax.legend()
plt.tight_layout()
plt.show()
print("best fixed gamma per seed set:", ", ".join(evaluation["best_fixed"]))
