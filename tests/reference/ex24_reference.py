"""Exercise 24-tree-shapes: an independent reference, written from the exercise text.

It imports nothing from solutions/. Values are exact (fractions.Fraction: every float is a
rational number), the optimum is searched two ways (every shape, for small budgets; a dynamic
programme over first child and younger siblings, for large ones), and the dynamic rule records the
paths it asks the draft for, so the suite replays the learner's calls against them.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from functools import cache


def chances(acceptance) -> list[Fraction]:
    """c[k] = acceptance[k] * prod_{j<k} (1 - acceptance[j]), exactly."""
    out, rejected = [], Fraction(1)
    for a in acceptance:
        a = Fraction(float(a))
        out.append(rejected * a)
        rejected *= 1 - a
    return out


def exact_value(paths, acceptance) -> Fraction:
    """Expected tokens per pass: 1 + sum over nodes of the product of c along the path."""
    c = chances(acceptance)
    total = Fraction(1)
    for path in paths:
        reach = Fraction(1)
        for rank in path:
            reach *= c[rank]
        total += reach
    return total


def forests(nodes: int, width: int, height: int, first_rank: int = 0):
    """Every ordered forest of ``nodes`` nodes hung at ranks first_rank, first_rank + 1, ... < width,
    each tree at most ``height`` deep, as lists of rank paths relative to the common parent."""
    if nodes == 0:
        yield []
        return
    if first_rank >= width or height == 0:
        return
    for size in range(1, nodes + 1):
        for below in forests(size - 1, width, height - 1):
            head = [(first_rank,)] + [(first_rank,) + path for path in below]
            for rest in forests(nodes - size, width, height, first_rank + 1):
                yield head + rest


def brute_force_optimum(acceptance, budget: int, max_depth: int | None = None) -> Fraction:
    """The largest value over every shape (small budgets only: the count grows like Catalan numbers)."""
    height = budget if max_depth is None else max_depth
    return max(exact_value(paths, acceptance) for paths in forests(budget, len(acceptance), height))


def dp_optimum(acceptance, budget: int, max_depth: int | None = None) -> float:
    """The optimum by a left-child right-sibling programme: best(n, k, h) = the best value of n nodes
    placed as the child of rank k (and its subtree, h deep at most) plus its younger siblings."""
    c = [float(x) for x in chances(acceptance)]
    width = len(c)

    @cache
    def best(n: int, k: int, h: int) -> float | None:
        if n == 0:
            return 0.0
        if k >= width or h == 0:
            return None
        options = []
        for own in range(n):  # nodes under the rank-k child; the rest go to its younger siblings
            under, siblings = best(own, 0, h - 1), best(n - 1 - own, k + 1, h)
            if under is not None and siblings is not None:
                options.append(c[k] * (1.0 + under) + siblings)
        return max(options) if options else None

    value = best(budget, 0, budget if max_depth is None else max_depth)
    return None if value is None else 1.0 + value


def best_shape(acceptance, budget: int, max_depth: int | None = None) -> list[tuple] | None:
    """One shape of the largest value, by the same programme as dp_optimum, kept with its choices
    (shown beside a learner's shape that is not the best)."""
    c = [float(x) for x in chances(acceptance)]
    width = len(c)

    @cache
    def best(n: int, k: int, h: int):
        if n == 0:
            return 0.0, ()
        if k >= width or h == 0:
            return None
        options = []
        for own in range(n):
            under, siblings = best(own, 0, h - 1), best(n - 1 - own, k + 1, h)
            if under is not None and siblings is not None:
                paths = ((k,), *((k, *path) for path in under[1]), *siblings[1])
                options.append((c[k] * (1.0 + under[0]) + siblings[0], paths))
        return max(options, key=lambda option: option[0]) if options else None

    found = best(budget, 0, budget if max_depth is None else max_depth)
    return None if found is None else sorted(found[1], key=lambda path: (len(path), path))


def path_confidence(draft_probs, tokens) -> float:
    """The product of the draft's probabilities of the tokens on a path (the newest token: 1)."""
    confidence = 1.0
    for depth, token in enumerate(tokens):
        confidence *= float(draft_probs(tuple(tokens[:depth]))[token])
    return confidence


def top_tokens(row, top_k: int) -> list[int]:
    return sorted(range(len(row)), key=lambda token: (-float(row[token]), token))[:top_k]


def reference_dynamic_tree(draft_probs, budget: int, top_k: int, depth: int):
    """(rank paths kept, in the order kept; paths asked of the draft, in order)."""
    asked, made, serial = [], [], 0
    level = [(1.0, (), ())]  # (confidence, tokens, ranks)
    for d in range(1, depth + 1):
        chosen = set(heapq.nsmallest(top_k, range(len(level)), key=lambda i: (-level[i][0], i)))
        following = []
        for i, (confidence, tokens, ranks) in enumerate(level):
            if i not in chosen:
                continue
            asked.append(tokens)
            row = [float(x) for x in draft_probs(tokens)]
            for rank, token in enumerate(top_tokens(row, top_k)):
                node = (confidence * row[token], tokens + (token,), ranks + (rank,))
                following.append(node)
                made.append((-node[0], d, serial, node[2]))
                serial += 1
        level = following
    kept = [entry[3] for entry in sorted(made)[:budget]]
    return kept, asked
