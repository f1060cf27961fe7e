"""Exercise 18-tree-attention-mask: reference solution. The exercise text is in exercises/ex18_tree_attention_mask.py."""

import torch


def tree_attention_mask(parents, prefix_length) -> torch.Tensor:
    parents, prefix_length = check_tree(parents, prefix_length)
    n = len(parents)
    mask = torch.zeros(n, prefix_length + n, dtype=torch.bool)
    mask[:, :prefix_length] = True  # every node sees the whole cached prefix
    for node in range(n):
        ancestor = node
        while ancestor != -1:  # the node itself, then its parent, its grandparent, ...
            mask[node, prefix_length + ancestor] = True
            ancestor = parents[ancestor]
    return mask


def tree_position_ids(parents, prefix_length) -> torch.Tensor:
    parents, prefix_length = check_tree(parents, prefix_length)
    depths = []
    for parent in parents:
        # A parent comes before its child (checked), so its depth is already known.
        depths.append(0 if parent == -1 else depths[parent] + 1)
    return torch.tensor([prefix_length + depth for depth in depths], dtype=torch.int64)


def check_tree(parents, prefix_length) -> tuple[list[int], int]:
    """The parent array as plain ints and the prefix length, or a ValueError naming what is wrong."""
    if isinstance(prefix_length, bool) or not hasattr(prefix_length, "__index__") or int(prefix_length) < 0:
        raise ValueError(f"prefix_length must be an integer >= 0; got {prefix_length!r}")
    if getattr(parents, "ndim", 1) != 1:
        raise ValueError(f"parents must be 1-D (one parent per node); got shape {tuple(parents.shape)}")
    values = parents.tolist() if hasattr(parents, "tolist") else list(parents)
    if not values:
        raise ValueError("parents is empty: a tree needs at least one node")
    for node, parent in enumerate(values):
        if isinstance(parent, bool) or not hasattr(parent, "__index__"):
            raise ValueError(f"parents must hold integer indices; node {node} has parent {parent!r}")
    values = [int(parent) for parent in values]
    n = len(values)
    for node, parent in enumerate(values):
        if parent < -1 or parent >= n:
            raise ValueError(f"node {node} has parent {parent}, out of range (-1 .. {n - 1})")
        if parent == node:
            raise ValueError(f"node {node} is its own parent")
    for node in range(n):
        seen, ancestor = {node}, values[node]
        while ancestor != -1:
            if ancestor in seen:
                raise ValueError(f"node {node} is on a cycle: following its parents never reaches -1")
            seen.add(ancestor)
            ancestor = values[ancestor]
    for node, parent in enumerate(values):
        if parent > node:
            raise ValueError(f"node {node} has parent {parent}, which comes after it: a parent must come before its child")
    return values, int(prefix_length)
