"""Exercise 18-tree-attention-mask: what a learner sees when a mask or a position is wrong."""

from __future__ import annotations

import numpy as np


def describe_case(parents, prefix_length) -> str:
    shown = [int(p) for p in parents]
    listing = str(shown) if len(shown) <= 40 else f"{shown[:20]} ... ({len(shown)} nodes)"
    return f"The case:\n  parents = {listing}\n  prefix_length = {prefix_length}"


def ancestry(parents: list[int], node: int) -> list[int]:
    path, at = [], node
    while at != -1 and len(path) <= len(parents):
        path.append(at)
        at = parents[at]
    return path


def row_text(row) -> str:
    return "".join("1" if value else "0" for value in row)


def prefix_columns(prefix_length: int) -> str:
    if prefix_length == 0:
        return "no prefix columns (prefix_length = 0)"
    return "mask column 0 is the prefix" if prefix_length == 1 else f"mask columns 0..{prefix_length - 1} are the prefix"


def mask_report(headline: str, parents: list[int], prefix_length: int, expected: np.ndarray, got: np.ndarray) -> str:
    lines = [headline, "", describe_case(parents, prefix_length), "",
             f"  rows are nodes; {prefix_columns(prefix_length)}, then mask column j is tree node j - {prefix_length} "
             f"(columns {prefix_length}..{prefix_length + len(parents) - 1})"]
    wrong = [i for i in range(len(parents)) if not (expected[i] == got[i]).all()]
    for node in wrong[:5]:
        path = ancestry(parents, node)
        columns = ", ".join(f"{prefix_length + a} (node {a})" for a in sorted(path))
        lines += [f"  node {node}: yours    {row_text(got[node])}",
                  f"  node {node}: expected {row_text(expected[node])}",
                  f"    (the prefix, itself and its ancestors {path[1:]}: mask column{'s' if len(path) > 1 else ''} "
                  f"{columns})"]
    if len(wrong) > 5:
        lines.append(f"  ... and {len(wrong) - 5} more wrong rows")
    return "\n".join(lines)


def positions_report(headline: str, parents: list[int], prefix_length: int, expected: list[int], got: list[int]) -> str:
    lines = [headline, "", describe_case(parents, prefix_length), "", f"  yours:     {got}", f"  expected:  {expected}"]
    for node in range(len(parents)):
        if node < len(got) and got[node] != expected[node]:
            depth = len(ancestry(parents, node)) - 1
            lines.append(f"  node {node} has depth {depth} (path to the last token {ancestry(parents, node)}): "
                         f"position {prefix_length} + {depth} = {expected[node]}")
            break
    return "\n".join(lines)
