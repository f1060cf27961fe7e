"""Exercise 24-tree-shapes: reference solution. The exercise text is in exercises/ex24_tree_shapes.py."""

from functools import cache

import numpy as np

from speckata.decoding.tree_shapes import TreeShape


def check_count(name: str, value, smallest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer; got {value!r} ({type(value).__name__})")
    if value < smallest:
        raise ValueError(f"{name} = {value} is below {smallest}: it must be >= {smallest}")
    return int(value)


def check_acceptance(acceptance) -> list[float]:
    try:
        values = np.asarray(acceptance, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"the acceptance vector must be a list of probabilities; got {acceptance!r}") from None
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"the acceptance vector must be a non-empty 1-D list of probabilities; got {acceptance!r}")
    if not np.all((values >= 0.0) & (values <= 1.0)):  # NaN fails both comparisons
        raise ValueError(f"every acceptance probability must be in [0, 1]; got {values.tolist()}")
    return values.tolist()


def child_chances(acceptance: list[float]) -> list[float]:
    """c[k]: the chance that a node's child of rank k is the accepted one (its elder siblings rejected)."""
    chances, all_rejected = [], 1.0
    for a in acceptance:
        chances.append(all_rejected * a)
        all_rejected *= 1.0 - a
    return chances


def expected_tokens(tree, acceptance) -> float:
    shape, chances = TreeShape(tree), child_chances(check_acceptance(acceptance))
    reached = {(): 1.0}  # the chance that every node on the path was accepted
    for path in shape.paths:  # parents come before their children
        if path[-1] >= len(chances):
            raise ValueError(f"the tree holds {path}, a child of rank {path[-1]}, but the acceptance vector has only "
                             f"{len(chances)} entries")
        reached[path] = reached[path[:-1]] * chances[path[-1]]
    return sum(reached.values())  # the root's 1: the correction or bonus token every pass makes


def capacity(width: int, depth: int) -> int:
    return sum(width**d for d in range(1, depth + 1))


def optimal_tree(acceptance, budget, max_depth=None) -> TreeShape:
    chances = child_chances(check_acceptance(acceptance))
    budget = check_count("budget", budget, 1)
    depth = budget if max_depth is None else check_count("max_depth", max_depth, 1)
    most = capacity(len(chances), min(depth, budget))
    if budget > most:
        raise ValueError(f"budget = {budget} nodes do not fit in a tree of at most {len(chances)} children per "
                         f"node and depth {depth} (at most {most} nodes)")

    @cache
    def children(nodes: int, rank: int, height: int) -> tuple[float, tuple]:
        """The best value of ``nodes`` nodes given to the children of ranks rank, rank + 1, ... of one node,
        each child's subtree at most ``height`` deep, and the sizes of those subtrees."""
        if nodes == 0:
            return 0.0, ()
        if rank == len(chances) or height == 0:
            return -1.0, ()  # impossible
        best, sizes = -1.0, ()
        for size in range(1, nodes + 1):  # this child's subtree holds `size` nodes, itself included
            below, _ = children(size - 1, 0, height - 1)
            rest, rest_sizes = children(nodes - size, rank + 1, height)
            if below < 0 or rest < 0:
                continue
            value = chances[rank] * (1.0 + below) + rest
            if value > best:
                best, sizes = value, (size,) + rest_sizes
        return best, sizes

    def build(prefix: tuple, nodes: int, height: int) -> list[tuple]:
        paths = []
        for rank, size in enumerate(children(nodes, 0, height)[1]):
            paths.append(prefix + (rank,))
            paths += build(prefix + (rank,), size - 1, height - 1)
        return paths

    return TreeShape(build((), budget, depth))


def draft_ranking(draft_probs, path: tuple, top_k: int) -> tuple[list[int], np.ndarray]:
    """The draft's top_k tokens after ``path`` (ties: the lower token id first) and its probabilities."""
    probs = np.asarray(draft_probs(path), dtype=float)
    if probs.ndim != 1 or probs.size < top_k or not np.all((probs >= 0.0) & (probs <= 1.0)):
        raise ValueError(f"draft_probs{path} must return a 1-D list of at least top_k = {top_k} probabilities in "
                         f"[0, 1]; got {probs.tolist()}")
    return np.argsort(-probs, kind="stable")[:top_k].tolist(), probs


def dynamic_tree(draft_probs, budget, top_k, depth) -> TreeShape:
    if not callable(draft_probs):
        raise ValueError(f"draft_probs must be a function of a token path; got {draft_probs!r}")
    top_k, depth = check_count("top_k", top_k, 1), check_count("depth", depth, 1)
    budget = check_count("budget", budget, 1)
    if budget > top_k + (depth - 1) * top_k * top_k:
        raise ValueError(f"budget = {budget} is more nodes than the expansion makes "
                         f"({top_k} + {depth - 1} x {top_k}^2)")
    made = []  # (confidence, depth, tokens, ranks), in the order made
    layer = [(1.0, 0, (), ())]  # the newest token, expanded first
    for level in range(1, depth + 1):
        chosen = sorted(range(len(layer)), key=lambda i: (-layer[i][0], i))[:top_k]
        new_layer = []
        for i in sorted(chosen):  # expanded in layer order
            confidence, _, tokens, ranks = layer[i]
            best, probs = draft_ranking(draft_probs, tokens, top_k)
            for rank, token in enumerate(best):
                new_layer.append((confidence * float(probs[token]), level, tokens + (int(token),), ranks + (rank,)))
        made += new_layer
        layer = new_layer
    order = sorted(range(len(made)), key=lambda i: (-made[i][0], made[i][1], i))
    return TreeShape([made[i][3] for i in order[:budget]])
