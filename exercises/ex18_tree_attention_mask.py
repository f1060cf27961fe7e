"""Exercise 18-tree-attention-mask: the attention mask and positions of a token tree.

Tree drafts (SpecInfer, Medusa, EAGLE, Sequoia) propose a tree of candidate tokens and the
target verifies all of it in ONE forward pass. The nodes sit side by side in that pass, so each
needs an attention mask that lets it see only its own root-to-node path (plus the cached prefix),
and a position id equal to its depth in the tree, not its index in the flat list. This exercise
builds both. Theory: theory/18-tree-attention-mask.md. Notebook: notebooks/18-tree-attention-mask.ipynb.

Inputs
    parents        the tree as a parent array: parents[i] is the index of node i's parent, or -1
                   when node i is a child of the current last token (the one the cache ends on).
                   A list, a tuple, or a 1-D numpy array or torch tensor of integers.
                   A parent must come BEFORE its child: parents[i] < i.
    prefix_length  L, the number of tokens already in the KV cache, an integer >= 0.

tree_attention_mask(parents, prefix_length) returns a torch.bool tensor of shape (n, L + n),
n = len(parents). Row i is what node i may attend to. Columns 0 .. L-1 are the cached prefix;
column L + j is tree node j. Row i is True at
    - every prefix column 0 .. L-1,
    - column L + i (the node itself),
    - column L + a for every ancestor a of i (its parent, its parent's parent, ... up to -1),
and False everywhere else (siblings, cousins, descendants, other branches).

tree_position_ids(parents, prefix_length) returns a torch.int64 tensor of shape (n,): entry i
is L + depth(i), where depth is 0 for a child of the last token (parent -1) and
depth(parent) + 1 otherwise.

Bad trees raise ValueError; the grader looks for these phrases:
    "prefix_length"  L not an integer >= 0 (bool is not an integer here; numpy ints are)
    "1-D"            parents given as a 2-D array or tensor
    "empty"          n = 0: no nodes
    "integer"        an entry that is not an integer, such as 1.5 or True
    "out of range"   a parent below -1 or >= n
    "its own parent" parents[i] == i
    "cycle"          following parents from some node never reaches -1
    "after"          a parent that comes after its child (parents[i] > i) in a tree with no cycle
Check them in that order (a cycle always has a parent after a child, so "cycle" is reported for
it, not "after").

Worked example (from theory/18-tree-attention-mask.md): L = 2 cached tokens and a tree whose
root 0 has children 1 and 2, and node 1 has child 3.

>>> mask = tree_attention_mask([-1, 0, 0, 1], 2)
>>> mask.dtype, tuple(mask.shape)
(torch.bool, (4, 6))
>>> for row in mask.int().tolist():
...     print(row)
[1, 1, 1, 0, 0, 0]
[1, 1, 1, 1, 0, 0]
[1, 1, 1, 0, 1, 0]
[1, 1, 1, 1, 0, 1]
>>> tree_position_ids([-1, 0, 0, 1], 2).tolist()
[2, 3, 3, 4]

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: a chain is the causal mask shifted by L
    Task 3: stars and two-level top-2 trees
    Task 4: position ids by depth
    Task 5: types and shapes
    Task 6: random trees against the reference
    Task 7: bad trees

Check it with:  kata check 18-tree-attention-mask   (or: pytest tests/test_18_tree_attention_mask.py)
"""

import torch


def tree_attention_mask(parents, prefix_length) -> torch.Tensor:
    # TODO(18-tree-attention-mask): every node sees the prefix, itself and its ancestors.
    raise NotImplementedError("18-tree-attention-mask: tree_attention_mask is not written yet")


def tree_position_ids(parents, prefix_length) -> torch.Tensor:
    # TODO(18-tree-attention-mask): L + depth, depth 0 for the children of the last token.
    raise NotImplementedError("18-tree-attention-mask: tree_position_ids is not written yet")
