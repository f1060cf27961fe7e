"""Exercise 29-medusa-tree: an independent reference, written from the exercise text (it imports nothing from solutions/).

The accuracies are counted position by position; the sparse tree is grown by scanning every rank
path at each step (no heap); the decoder walks its tree recursively with exercise 16's and 18's
references (tests/reference/ex16_reference.py, ex18_reference.py), drawing lazily from the torch
generator. Its calls are made on a recorder of its own, so they ARE the contract's calls.
"""

from __future__ import annotations

import math
from itertools import product

import torch
import torch.nn.functional as F

from speckata.decoding.sampling import next_token_probabilities
from speckata.decoding.tree_shapes import TreeShape
from speckata.heads.medusa import RecordingHiddenModel
from tests.reference import ex16_reference
from tests.reference.ex01_reference import inverse_cdf
from tests.reference.ex18_reference import reference_mask, reference_positions
from tests.reference.ex20_reference import ReferenceRun, node_children, uniforms  # its draft stays None


def head_rankings(heads, hidden: torch.Tensor) -> torch.Tensor:
    """(K, ..., V): each head's token ids from its largest logit down, exercise 21's head formula."""
    logits = [projection(hidden + F.silu(block(hidden))) for block, projection in zip(heads.blocks, heads.projections)]
    return torch.stack([torch.sort(row, dim=-1, descending=True, stable=True).indices for row in logits])


@torch.no_grad()
def reference_accuracies(target, heads, ids: list[int], top: int):
    """(accuracies (K, top) float64, the calls made on the target)."""
    model = RecordingHiddenModel(target)
    model.reset()
    hidden, _ = model.forward_new_hidden(list(ids))
    rankings = head_rankings(heads, hidden).tolist()
    table = []
    for k in range(heads.num_heads):
        scored = [t for t in range(len(ids)) if t + k + 2 < len(ids)]
        table.append([sum(rankings[k][t][r] == ids[t + k + 2] for t in scored) / len(scored) for r in range(top)])
    return torch.tensor(table, dtype=torch.float64), model.calls


def reference_tree(accuracies, budget: int) -> list[tuple[int, ...]]:
    """The sparse tree's paths in the order they join: each step scans every path for the frontier's best."""
    table = [[float(v) for v in row] for row in torch.as_tensor(accuracies, dtype=torch.float64)]
    heads, top = len(table), len(table[0])
    paths = [path for depth in range(1, heads + 1) for path in product(range(top), repeat=depth)]
    chosen: list[tuple[int, ...]] = []
    while len(chosen) < budget:
        held = set(chosen)
        frontier = [path for path in paths if path not in held and (len(path) == 1 or path[:-1] in held)
                    and (path[-1] == 0 or path[:-1] + (path[-1] - 1,) in held)]
        chosen.append(min(frontier, key=lambda path: (-worth(table, path), len(path), path)))
    return chosen


def worth(table, path) -> float:
    return math.prod(table[depth][rank] for depth, rank in enumerate(path))  # from head 0 on, as the text says


def decide(node, kids, tokens, p, q, stream, lines) -> tuple[list[int], int]:
    """Recursively: the accepted nodes below ``node`` (-1: the newest token) and the token that ends the round."""
    if not kids[node]:
        token = inverse_cdf(p[node], next(stream))
        lines.append(f"node {node}: no children, bonus token {token} sampled from its p")
        return [], token
    candidates = [tokens[kid] for kid in kids[node]]
    trace = ex16_reference.reference_trace(p[node], candidates, stream)
    for event in trace.events:
        shown = f" (u = {event.u:.4f}{f', ratio {event.ratio:.4f}' if event.ratio is not None else ''})" if event.u is not None else ""
        lines.append(f"node {node}, children {candidates}, try {event.position}: {event.kind} token {event.token}{shown}")
    token = int(trace.tokens[0])
    if token not in candidates:
        return [], token
    child = kids[node][candidates.index(token)]
    below, last = decide(child, kids, tokens, p, q, stream, lines)
    return [child] + below, last


@torch.no_grad()
def reference_generate(target, heads, prompt, max_new_tokens, tree, generator, temperature=1.0) -> ReferenceRun:
    run = ReferenceRun(target=RecordingHiddenModel(target, generator))  # the draws between its calls counted
    model, full, stream = run.target, TreeShape(tree), uniforms(generator)
    model.reset()
    if max_new_tokens == 0:
        return run
    hidden, logits = model.forward_new_hidden(list(prompt))
    run.target_passes = 1
    state = hidden[-1]
    newest = inverse_cdf(next_token_probabilities(logits[-1], temperature).numpy(), next(stream))
    run.tokens.append(newest)
    while len(run.tokens) < max_new_tokens:
        shape = full.truncated(max_new_tokens - len(run.tokens) - 1)
        rankings = head_rankings(heads, state).tolist()  # (K, V)
        tokens = [rankings[len(path) - 1][path[-1]] for path in shape.paths]
        parents = [-1] + [parent + 1 for parent in shape.parents]
        start = model.cache_length
        hidden, logits = model.forward_tree_hidden([newest] + tokens, torch.tensor(reference_mask(parents, start)),
                                                   torch.tensor(reference_positions(parents, start)))
        run.target_passes += 1
        p = {node: next_token_probabilities(logits[node + 1], temperature).numpy() for node in range(-1, len(shape))}
        lines: list[str] = []
        path, newest = decide(-1, node_children(shape), tokens, p, None, stream, lines)
        model.keep_path([0] + [node + 1 for node in path])
        state = hidden[path[-1] + 1] if path else hidden[0]
        run.tokens += [tokens[node] for node in path] + [int(newest)]
        run.accepted_per_pass.append(len(path))
        run.drafted_per_pass.append(len(shape))
        run.walks.append(lines)
    return run
