# %% [markdown]
# # 29-medusa-tree, worked
#
# Medusa's heads read as a tree on the kata's trained character-level target: how often each
# head's rank-r token is right, the sparse tree those accuracies price, and decoding with the
# tree verified in one target pass, round by round, beside exercise 21's top-1 chain.
# Theory: `theory/29-medusa-tree.md`. Exercise: `exercises/ex29_medusa_tree.py`.
#
# The cells run **your** functions from `exercises/ex29_medusa_tree.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again.

# %%
import matplotlib.pyplot as plt
import torch

import learner
from speckata.decoding.baseline import autoregressive_generate
from speckata.heads.medusa import RecordingHiddenModel, load_medusa_heads
from speckata.models.pretrained import char_tokenizer, load_target, text_windows

torch.set_num_threads(1)
head_accuracies = learner.yours("ex29_medusa_tree", "head_accuracies")
medusa_tree = learner.yours("ex29_medusa_tree", "medusa_tree")
medusa_tree_generate = learner.yours("ex29_medusa_tree", "medusa_tree_generate")
medusa_generate = learner.reference("ex21_medusa_heads", "medusa_generate")  # exercise 21's chain
target, heads = load_target(), load_medusa_heads()
tokenizer = char_tokenizer()

# %% [markdown]
# ## Task 1: how often each rank is right
#
# One target pass over a text; head k's rank-r token at position t is right when it is the token
# k + 2 ahead. The worked example, then 16 training windows of 128 characters averaged: the
# second and third ranks are right often enough to be worth a node.

# %%
learner.compare(lambda: head_accuracies(target, heads, text_windows("train", 64, limit=1)[0], 3).numpy().round(3).tolist(),
                [[0.597, 0.113, 0.065], [0.508, 0.115, 0.049], [0.5, 0.117, 0.05]])
windows = text_windows("train", 128, limit=16)


def measured_accuracies():
    """Your head_accuracies, top 8, averaged over the 16 windows (the later cells use it too)."""
    return sum(head_accuracies(target, heads, row, 8) for row in windows) / len(windows)


with learner.until_written():
    accuracies = measured_accuracies()
    for k in range(3):
        plt.plot(range(8), accuracies[k].numpy(), marker="o", label=f"head {k} (token t+{k + 2})")
    plt.xlabel("rank r")
    plt.ylabel("share of positions where rank r is right")
    plt.legend()
    plt.show()

# %% [markdown]
# ## Task 2: the sparse tree
#
# A path is worth the product of its heads' accuracies; the tree grows by the frontier's most
# valuable path (ties: shallower, then smaller ranks). The worked example, then trees of 8 and
# 16 nodes from the measured accuracies.

# %%
learner.compare(lambda: medusa_tree([[0.6, 0.2], [0.5, 0.3]], 4).paths, [(0,), (1,), (0, 0), (0, 1)])
with learner.until_written():
    accuracies = measured_accuracies()
    for budget in (8, 16):
        print(f"{budget} nodes: {medusa_tree(accuracies, budget).paths}")

# %% [markdown]
# ## Task 3: decoding, round by round
#
# Each round: the newest token and the tree below it in ONE tree pass, the walk keeps a path. At
# temperature 0 the output is the target's greedy decoding.

# %%
prompt = tokenizer.encode("The class definition ")
tree = [(0,), (1,), (2,), (0, 0), (0, 1), (1, 0), (0, 0, 0)]
greedy = autoregressive_generate(target, prompt, 16, torch.Generator(), temperature=0)
learner.compare(lambda: medusa_tree_generate(target, heads, prompt, 16, tree, torch.Generator(), 0.0).tokens, greedy)
rounds = RecordingHiddenModel(target)
with learner.until_written():
    result = medusa_tree_generate(rounds, heads, prompt, 16, tree, torch.Generator(), 0.0)
    fed = []
    for call in rounds.calls:
        if call[0] == "tree":
            fed = list(call[1])
            print(f"pass: newest {tokenizer.decode(fed[:1])!r}, tree nodes {tokenizer.decode(fed[1:])!r}", end="   ")
        elif call[0] == "keep_path":
            print(f"-> keep {tokenizer.decode([fed[i] for i in call[1]])!r}")
    print(f"{len(result.tokens)} tokens in {result.target_passes} target passes (the prompt's included): "
          f"{tokenizer.decode(result.tokens)!r}")

# %% [markdown]
# ## The chain against trees of 8, 16 and 32 nodes
#
# Greedy, 48 new tokens from each of four held-out windows of 24 characters.

# %%
prompts = text_windows("held_out", 24, limit=4).tolist()


def tokens_per_pass(run):
    results = [run(prompt) for prompt in prompts]
    return sum(len(r.tokens) for r in results) / sum(r.target_passes for r in results)


with learner.until_written():
    accuracies = measured_accuracies()
    rates = {"chain (ex21)": tokens_per_pass(lambda p: medusa_generate(target, heads, p, 48))}
    for budget in (8, 16, 32):
        shape = medusa_tree(accuracies, budget)
        rates[f"tree, {budget} nodes"] = tokens_per_pass(
            lambda p: medusa_tree_generate(target, heads, p, 48, shape, torch.Generator(), 0.0))
    for name, rate in rates.items():
        print(f"{name:<16} {rate:.2f} tokens per target pass")
    plt.bar(list(rates), list(rates.values()))
    plt.ylabel("tokens per target pass")
    plt.show()

# %% [markdown]
# ## Sampled: the same rule at temperature 1
#
# Exercise 16's rule keeps the output distributed as the target's own sampling (the grading
# suite's chi-square test checks it on a tiny model); here, one sampled continuation.

# %%
with learner.until_written():
    sampled = medusa_tree_generate(target, heads, prompt, 48, medusa_tree(measured_accuracies(), 16),
                                   torch.Generator().manual_seed(0))
    print(f"{sampled.tokens_per_pass:.2f} tokens per pass: {tokenizer.decode(sampled.tokens)!r}")
