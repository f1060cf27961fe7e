"""Medusa's tree (exercise 29) in the heads bench: its decoders at a few node budgets, and what a tree pass costs.

The trees are exercise 29's sparse trees, priced by the committed heads' accuracies (top 8 ranks)
on TRAINING windows, so the held-out prompts the bench decodes never chose the tree. The pass
costs are timed as speckata/bench/heads_steps.py times its steps (interleaved, the median of 7
timings of 30 calls, in target passes over one new token): a pass over Medusa's chain (the newest
token and one guess per head) beside a tree pass over the newest token and each tree's nodes.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from speckata.bench._timing import in_units_of, interleaved_seconds
from speckata.heads.medusa import load_medusa_heads
from speckata.models.pretrained import HEAD_TARGETS, text_windows
from speckata.real.graded import graded_function

BUDGETS = (8, 16, 32)  # tree nodes, Medusa's chain has 3 (one per committed head)
TOP = 8  # ranks priced per head: a tree of 32 nodes uses at most 8 children of one node
WINDOWS = 16  # training windows of 128 characters the accuracies are averaged over


@lru_cache(maxsize=None)
def sparse_trees(folder: str = "solutions", on: str = "shipped") -> dict[int, list[tuple[int, ...]]]:
    """budget -> exercise 29's sparse tree from the committed heads' accuracies (on target ``on``) on training text."""
    head_accuracies = graded_function("ex29_medusa_tree", "head_accuracies", folder)
    medusa_tree = graded_function("ex29_medusa_tree", "medusa_tree", folder)
    target, heads = HEAD_TARGETS[on](), load_medusa_heads(on=on)
    windows = text_windows("train", 128, limit=WINDOWS)
    accuracies = sum(head_accuracies(target, heads, row, TOP) for row in windows) / len(windows)
    return {budget: medusa_tree(accuracies, budget).paths for budget in BUDGETS}


def medusa_tree_runs(args, target, heads) -> dict:
    """name -> run(prompt, generator): exercise 29's decoder on each sparse tree (greedy or sampled)."""
    generate = graded_function("ex29_medusa_tree", "medusa_tree_generate", args.target)
    return {f"medusa tree b={budget}": lambda p, g, tree=tree: generate(target, heads, p, args.tokens, tree, g,
                                                                         args.temperature)
            for budget, tree in sparse_trees(args.target, args.model).items()}


@torch.no_grad()
def tree_pass_costs(target, context: int, folder: str, on: str = "shipped", repeats: int = 7, calls: int = 30) -> dict:
    """Per pass: its median time in target passes over one new token, and min..max over the timings."""
    tree_attention_mask = graded_function("ex18_tree_attention_mask", "tree_attention_mask", folder)
    tree_position_ids = graded_function("ex18_tree_attention_mask", "tree_position_ids", folder)
    chain = load_medusa_heads(on=on).num_heads + 1
    ids = text_windows("held_out", context + max(BUDGETS) + 1, limit=1)[0].tolist()
    target.reset()
    target.forward_new_hidden(ids[:context])

    def chain_pass(n):
        target.crop(context)
        target.forward_new_hidden(ids[context: context + n])

    def tree_pass(paths):
        parents = [-1] + [1 + (paths.index(path[:-1]) if len(path) > 1 else -1) for path in paths]
        mask, positions = tree_attention_mask(parents, context), tree_position_ids(parents, context)
        target.crop(context)
        target.forward_tree_hidden(ids[context: context + len(parents)], mask, positions)
        target.keep_path([0])

    passes = {"target pass, 1 token": lambda: chain_pass(1),
              f"medusa chain, {chain} tokens (ex21)": lambda: chain_pass(chain)}
    for budget, paths in sparse_trees(folder, on).items():
        passes[f"medusa tree, 1+{budget} nodes (ex29)"] = lambda paths=paths: tree_pass(paths)
    costs = in_units_of("target pass, 1 token", interleaved_seconds(passes, repeats, calls))
    return {name: cost for name, cost in costs.items() if name != "target pass, 1 token"}
