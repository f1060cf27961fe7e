"""Exercise 18-tree-attention-mask: an independent reference (it does not import solutions/).

The solution walks each node up to the root. Here the ancestor relation is built the other way:
start from "sees itself" and add one parent link at a time until nothing changes (a transitive
closure), and read the depth off it, since a node sees exactly depth + 1 tree nodes.
"""

from __future__ import annotations

import numpy as np


def ancestors_or_self(parents: list[int]) -> np.ndarray:
    """(n, n) bool: entry [i, j] is True when j is i or an ancestor of i."""
    n = len(parents)
    step = np.zeros((n, n), dtype=bool)  # step[i, j]: j is i's parent
    for child, parent in enumerate(parents):
        if parent != -1:
            step[child, parent] = True
    seen = np.eye(n, dtype=bool)
    while True:
        grown = seen | ((seen.astype(np.int64) @ step.astype(np.int64)) > 0)
        if (grown == seen).all():
            return seen
        seen = grown


def reference_mask(parents: list[int], prefix_length: int) -> np.ndarray:
    tree = ancestors_or_self(parents)
    prefix = np.ones((len(parents), prefix_length), dtype=bool)
    return np.concatenate([prefix, tree], axis=1)


def reference_positions(parents: list[int], prefix_length: int) -> list[int]:
    depths = ancestors_or_self(parents).sum(axis=1) - 1
    return [prefix_length + int(depth) for depth in depths]
