# %% [markdown]
# # 20-tree-verification, worked
#
# A tree speculative decoder on a toy chain, round by round (what the target is fed, its mask,
# the nodes kept), then on the kata's trained character models: tokens per target pass for a chain
# of n drafted nodes against a tree of n nodes, n = 4, 8, 16. Theory:
# `theory/20-tree-verification.md`. Exercise: `exercises/ex20_tree_verification.py`.

# %%
import matplotlib.pyplot as plt
import torch

import learner
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import load_draft, load_target, text_windows
from speckata.models.recording import RecordingModel
from speckata.decoding.tree_shapes import TreeShape, chain

torch.set_num_threads(1)

# Yours, from exercises/ex20_tree_verification.py: "not written yet" (with the expected values) while
# it is the stub. Save your file, then run the cells again.
tree_speculative_generate = learner.yours("ex20_tree_verification", "tree_speculative_generate")

# %% [markdown]
# ## Round by round on a chain
#
# The draft's top two children of the newest token are tried in rank order. Round 1 feeds the
# prompt token and both children in one pass; the target rejects the first child and accepts the
# second, and the bonus token follows. keep_path then keeps the prompt token and the accepted
# child (nodes 0 and 2 of that pass), not the rejected sibling.

# %%
target = RecordingModel(MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]))
draft = RecordingModel(MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]))
learner.compare(lambda: tree_speculative_generate(target, draft, [0], 4, [(0,), (1,)],
                                                  torch.Generator().manual_seed(2)).tokens, [2, 1, 1, 0])
learner.compare(lambda: [call[1] for call in target.calls if call[0] == "tree"], [(0, 1, 2), (1, 2, 0), (1,)])
learner.compare(lambda: [call for call in target.calls if call[0] == "keep_path"],
                [("keep_path", (0, 2), 3), ("keep_path", (0,), 5), ("keep_path", (0,), 4)])
tree_passes = [call for call in target.calls if call[0] == "tree"]
if tree_passes:
    print("round 1's mask (rows: the prompt token and the two children):")
    for row in tree_passes[0][2]:
        print("   ", row)
else:
    print("(no tree pass recorded yet: write tree_speculative_generate, then run the cells again)")

# %% [markdown]
# ## A chain against a tree of the same size
#
# Greedy decoding (the output is the target's own greedy text whatever the shape), 48 new tokens
# from each of four held-out windows. The tree puts two children at the top and the other n - 2
# nodes under the first: the second child is tried exactly when the first fails, the likeliest
# place for a round to end, and the nodes it costs come from the bottom of the chain, which is
# rarely reached.

# %%
big, small = load_target(), load_draft()
prompts = text_windows("held_out", 24, limit=4).tolist()


def tokens_per_pass(shape):
    runs = [tree_speculative_generate(big, small, prompt, 48, shape, torch.Generator(), 0.0) for prompt in prompts]
    return sum(len(r.tokens) for r in runs) / sum(r.target_passes for r in runs)


def two_at_the_top(n):
    return TreeShape([(0,), (1,)] + [(0,) * depth for depth in range(2, n)])


budgets = [4, 8, 16]
with learner.until_written():
    chains = [tokens_per_pass(chain(n)) for n in budgets]
    trees = [tokens_per_pass(two_at_the_top(n)) for n in budgets]
    for n, a, b in zip(budgets, chains, trees):
        print(f"n = {n:2}: chain {a:.2f}  tree {b:.2f} tokens per target pass")
    plt.plot(budgets, chains, marker="o", label="chain of n nodes")
    plt.plot(budgets, trees, marker="o", label="tree of n nodes (two at the top)")
    plt.xlabel("drafted nodes per round")
    plt.ylabel("tokens per target pass")
    plt.ylim(bottom=0)  # from zero, so the gap between the lines reads at its true size
    plt.legend()
    plt.show()
