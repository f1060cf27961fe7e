# %% [markdown]
# # 18-tree-attention-mask, worked
#
# A token tree is fed to the target as one flat list of nodes. This notebook runs your
# `tree_attention_mask` and `tree_position_ids` (from `exercises/ex18_tree_attention_mask.py`) on
# the worked example and on a two-level tree of top-2 candidates, and draws your mask beside the
# expected one. Theory: `theory/18-tree-attention-mask.md`.

# %%
import matplotlib.pyplot as plt
import numpy as np

import learner

# Yours: "not written yet" (with the expected values) while it is the stub. Save your file, then
# run the cells again.
tree_attention_mask = learner.yours("ex18_tree_attention_mask", "tree_attention_mask")
tree_position_ids = learner.yours("ex18_tree_attention_mask", "tree_position_ids")


def rows(mask):
    return "\n".join("".join(str(v) for v in row) for row in mask.int().tolist()) if hasattr(mask, "int") else mask


# %% [markdown]
# ## The worked example
#
# Two cached tokens, then a root (node 0) with children 1 and 2, and node 3 under node 1. Each row
# is a node; the first two columns are the prefix, the next four the nodes.

# %%
worked = [-1, 0, 0, 1]
learner.compare(lambda: rows(tree_attention_mask(worked, 2)), "111000\n111100\n111010\n111101", describe=lambda s: "\n" + s)
learner.compare(lambda: tree_position_ids(worked, 2).tolist(), [2, 3, 3, 4])

# %% [markdown]
# ## Two levels of top-2 candidates
#
# Three cached tokens. The draft offers two candidates for the next token (nodes 0 and 1) and two
# candidates after each (nodes 2, 3 under 0; 4, 5 under 1). Every node sees the prefix and its own
# path only; nodes 2 to 5 share one position, L + 1 = 4.

# %%
top2 = [-1, -1, 0, 0, 1, 1]
expected = np.array([
    [1, 1, 1, 1, 0, 0, 0, 0, 0],
    [1, 1, 1, 0, 1, 0, 0, 0, 0],
    [1, 1, 1, 1, 0, 1, 0, 0, 0],
    [1, 1, 1, 1, 0, 0, 1, 0, 0],
    [1, 1, 1, 0, 1, 0, 0, 1, 0],
    [1, 1, 1, 0, 1, 0, 0, 0, 1],
])
learner.compare(lambda: tree_position_ids(top2, 3).tolist(), [3, 3, 4, 4, 4, 4])

mine = None
with learner.until_written():
    mine = tree_attention_mask(top2, 3).int().numpy()
    print(f"{learner.whose()} equals the expected mask:", bool((mine == expected).all()))

pictures = [("expected", expected)] + ([(learner.whose(), mine)] if mine is not None else [])
fig, axes = plt.subplots(1, len(pictures), figsize=(4 * len(pictures), 3.2), squeeze=False)
for ax, (title, picture) in zip(axes[0], pictures):
    ax.imshow(picture, cmap="Greys", vmin=0, vmax=1)
    ax.axvline(2.5, color="tab:red", linewidth=1)  # prefix | tree nodes
    ax.set_title(title)
    ax.set_xticks(range(9), ["p0", "p1", "p2"] + [f"n{j}" for j in range(6)])
    ax.set_yticks(range(6), [f"node {i}" for i in range(6)])
plt.tight_layout()
plt.show()

# %% [markdown]
# ## A chain is the causal mask
#
# Parents -1, 0, 1, 2: each node continues the one before it, so the tree part of the mask is the
# lower triangle, ordinary causal decoding shifted right by the prefix.

# %%
learner.compare(lambda: rows(tree_attention_mask([-1, 0, 1, 2], 1)), "11000\n11100\n11110\n11111", describe=lambda s: "\n" + s)

# %% [markdown]
# ## Bad trees
#
# A parent listed after its child cannot be served in one pass in list order; a cycle is not a tree.

# %%
for bad in ([-1, 2, 0], [1, 0], [-1, 1]):
    try:
        tree_attention_mask(bad, 2)
        print(bad, "-> accepted (it should raise ValueError)")
    except ValueError as error:
        print(bad, "-> ValueError:", error)
    except learner.NotWrittenYet as stub:
        print(bad, f"-> ({stub})")
