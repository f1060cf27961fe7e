"""Draft-tree shapes for exercise 20, given: which children each node of a token tree gets.

A shape is a set of rank paths (Medusa calls them "tree choices"): (0,) is the first child of the
newest token, (1,) its second child, (0, 2) the third child of (0,), and so on. Rank r is the
draft's (r + 1)-th most likely token there (top-k children) or its (r + 1)-th sample (sampled
children). A shape holds the parent of every path it holds, and a node's c children have ranks
0 .. c - 1. Nodes are numbered by depth, then by path: the children of one node are neighbours,
in rank order, and a level is one run of numbers. The depth of a child of the newest token is 1.

>>> shape = TreeShape([(1, 0), (0,), (1,), (0, 0), (0, 1)])
>>> shape.paths
[(0,), (1,), (0, 0), (0, 1), (1, 0)]
>>> shape.parents, shape.depths, shape.children(-1), shape.children(0), shape.levels
([-1, -1, 0, 0, 1], [1, 1, 2, 2, 2], [0, 1], [2, 3], [(0, 2), (2, 5)])
>>> shape.truncated(1).paths, len(chain(4)), len(top_k_tree([2, 2]))
([(0,), (1,)], 4, 6)
"""

from __future__ import annotations

from speckata.checks.decoding import check_generation_inputs
from speckata.token_ids import is_integer

CHILDREN_RULES = ("top_k", "sampled")


class TreeShape:
    def __init__(self, paths):
        if isinstance(paths, TreeShape):
            paths = paths.paths
        try:
            listed = [tuple(path) for path in paths]
        except TypeError:
            raise ValueError(f"the tree must be a list of rank paths such as [(0,), (1,), (0, 0)]; got {paths!r}") from None
        for path in listed:
            if not path or not all(is_integer(rank) and int(rank) >= 0 for rank in path):
                raise ValueError(f"every rank path of the tree must be a non-empty tuple of integer ranks >= 0; got {path!r}")
        listed = [tuple(int(rank) for rank in path) for path in listed]
        if len(set(listed)) != len(listed):
            raise ValueError(f"the tree holds a duplicate rank path: {sorted(listed)}")
        held = set(listed)
        for path in listed:
            if len(path) > 1 and path[:-1] not in held:
                raise ValueError(f"the tree holds {path} but not its parent {path[:-1]}")
            if path[-1] > 0 and path[:-1] + (path[-1] - 1,) not in held:
                raise ValueError(f"the tree holds {path} but not {path[:-1] + (path[-1] - 1,)}: "
                                 "a node's children have ranks 0 .. c - 1")
        self.paths = sorted(listed, key=lambda path: (len(path), path))
        index = {path: node for node, path in enumerate(self.paths)}
        self.parents = [index[path[:-1]] if len(path) > 1 else -1 for path in self.paths]
        self.depths = [len(path) for path in self.paths]

    def __len__(self) -> int:
        return len(self.paths)

    def children(self, node: int) -> list[int]:
        """The children of ``node`` (-1: of the newest token), in rank order."""
        return [child for child, parent in enumerate(self.parents) if parent == node]

    @property
    def levels(self) -> list[tuple[int, int]]:
        """(first node, one past the last node) of each depth 1, 2, ...."""
        ends = [self.depths.count(depth) for depth in range(1, max(self.depths, default=0) + 1)]
        starts = [sum(ends[:i]) for i in range(len(ends))]
        return [(start, start + count) for start, count in zip(starts, ends)]

    def truncated(self, max_depth: int) -> TreeShape:
        """The nodes of depth at most ``max_depth`` (an empty shape when max_depth <= 0)."""
        return TreeShape([path for path in self.paths if len(path) <= max_depth])

    def __repr__(self) -> str:
        return f"TreeShape({self.paths})"


def chain(length: int) -> TreeShape:
    """A single branch of ``length`` nodes: exercise 10's γ drafts as a tree."""
    return TreeShape([(0,) * depth for depth in range(1, length + 1)])


def top_k_tree(widths) -> TreeShape:
    """Every node at depth d gets widths[d - 1] children."""
    paths, level = [], [()]
    for width in widths:
        level = [path + (rank,) for path in level for rank in range(width)]
        paths += level
    return TreeShape(paths)


def check_tree_generation_inputs(target, draft, prompt_ids, max_new_tokens, tree, temperature, children):
    """Exercise 20's checks: (the prompt as a list of ints, the tree as a non-empty TreeShape).

    ValueError phrases: "prompt", "max_new_tokens", "temperature", "vocabulary" (as exercise 10),
    "tree" (a shape that is empty or not valid), "children" (not "top_k" or "sampled").
    """
    prompt = check_generation_inputs(target, draft, prompt_ids, max_new_tokens, 1, temperature)
    if children not in CHILDREN_RULES:
        raise ValueError(f"children must be 'top_k' or 'sampled'; got {children!r}")
    shape = TreeShape(tree)
    if not len(shape):
        raise ValueError("the tree is empty: give at least one rank path, such as [(0,)]")
    return prompt, shape
