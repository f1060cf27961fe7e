"""Exercise 20-tree-verification: an independent reference (it imports nothing from solutions/).

The per-node rules are exercise 15's and 16's references (tests/reference/ex15_reference.py and
ex16_reference.py, fed lazily from the torch generator, one draw per number they take), the masks
and positions exercise 18's reference (a transitive closure, not a walk to the root). The walk
down the tree is recursive here. The reference makes its calls on RecordingModels, so its
recorded calls ARE the contract's calls, compared one for one with the learner's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from speckata.decoding.baseline import SpeculativeResult
from speckata.decoding.sampling import draw_uniform, next_token_probabilities
from speckata.decoding.tree_shapes import TreeShape
from speckata.models.recording import RecordingModel
from tests.reference import ex15_reference, ex16_reference
from tests.reference.ex01_reference import inverse_cdf
from tests.reference.ex18_reference import reference_mask, reference_positions


@dataclass
class ReferenceRun(SpeculativeResult):
    """The result the contract's decoder returns, and what it did on the way."""

    walks: list[list[str]] = field(default_factory=list)  # per round: the reasoning, one line per node tried
    target: RecordingModel | None = None
    draft: RecordingModel | None = None


def uniforms(generator: torch.Generator):
    """An endless lazy stream: a number is drawn only when a rule takes it."""
    while True:
        yield draw_uniform(generator)


def node_children(shape: TreeShape) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {-1: []}
    for node, parent in enumerate(shape.parents):
        found.setdefault(parent, []).append(node)
        found.setdefault(node, [])
    return found


def build_draft_tree(draft, sequence, shape, stream, temperature, children):
    """Node tokens, the draft's probabilities and logits at the newest token (-1) and each fed node, and
    how many nodes were fed (every level but the deepest, a level per forward_tree)."""
    kids = node_children(shape)
    tokens = [None] * len(shape)
    rows = {-1: draft.forward_new(sequence[draft.cache_length :])[-1]}
    start, fed = draft.cache_length, 0
    deepest = max(shape.depths)
    for depth in range(1, deepest + 1):
        level = [node for node in range(len(shape)) if shape.depths[node] == depth]
        for parent in sorted({shape.parents[node] for node in level}):
            ranked = torch.sort(rows[parent], descending=True, stable=True).indices.tolist()
            q = next_token_probabilities(rows[parent], temperature).numpy()
            for rank, node in enumerate(kids[parent]):
                tokens[node] = ranked[rank] if children == "top_k" else inverse_cdf(q, next(stream))
        if depth < deepest:
            end = level[-1] + 1
            mask = torch.tensor(reference_mask(shape.parents[:end], start))[level[0] :]
            positions = torch.tensor(reference_positions(shape.parents[:end], start)[level[0] :])
            for node, row in zip(level, draft.forward_tree(tokens[level[0] : end], mask, positions)):
                rows[node] = row
            fed = end
    return tokens, rows, fed


def decide(node, kids, tokens, p, q, stream, children, lines) -> tuple[list[int], int]:
    """Recursively: the accepted nodes below ``node`` and the token that ends the round."""
    if not kids[node]:
        token = inverse_cdf(p[node], next(stream))
        lines.append(f"node {node}: a leaf, bonus token {token} sampled from its p")
        return [], token
    candidates = [tokens[kid] for kid in kids[node]]
    if children == "top_k":
        trace = ex16_reference.reference_trace(p[node], candidates, stream)
    else:
        trace = ex15_reference.reference_trace(p[node], q[node], candidates, stream, without_replacement=False)
    for event in trace.events:
        ratio = f", ratio {event.ratio:.4f}" if event.ratio is not None else ""
        lines.append(f"node {node}, candidate {event.position}: {event.kind} token {event.token}"
                     f"{f' (u = {event.u:.4f}{ratio})' if event.u is not None else ''}")
    accepted = [event.position for event in trace.events if event.kind == "accept"]
    if not accepted:
        return [], trace.tokens[0]
    child = kids[node][accepted[0]]
    below, token = decide(child, kids, tokens, p, q, stream, children, lines)
    return [child] + below, token


def reference_generate(target, draft, prompt, max_new_tokens, tree, generator, temperature=1.0,
                       children="top_k") -> ReferenceRun:
    run = ReferenceRun(target=RecordingModel(target, generator), draft=RecordingModel(draft, generator))
    target, draft = run.target, run.draft
    full, sequence, stream = TreeShape(tree), list(prompt), uniforms(generator)
    target.reset()
    draft.reset()
    while len(run.tokens) < max_new_tokens:
        shape = full.truncated(max_new_tokens - len(run.tokens) - 1)
        tokens, q_rows, fed = [], {}, 0
        if len(shape):
            tokens, q_rows, fed = build_draft_tree(draft, sequence, shape, stream, temperature, children)
            run.draft_passes += max(shape.depths)
        pending, start = sequence[target.cache_length :], target.cache_length
        m = len(pending)
        parents = [node - 1 for node in range(m)] + [m + parent if parent >= 0 else m - 1 for parent in shape.parents]
        logits = target.forward_tree(pending + tokens, torch.tensor(reference_mask(parents, start)),
                                     torch.tensor(reference_positions(parents, start)))
        p = {node: next_token_probabilities(logits[m + node], temperature).numpy() for node in range(-1, len(shape))}
        q = {node: next_token_probabilities(row, temperature).numpy() for node, row in q_rows.items()}
        lines: list[str] = []
        path, extra = decide(-1, node_children(shape), tokens, p, q, stream, children, lines)
        new = [tokens[node] for node in path] + [int(extra)]
        sequence += new
        run.tokens += new
        run.accepted_per_pass.append(len(path))
        run.drafted_per_pass.append(len(shape))
        run.target_passes += 1
        run.walks.append(lines)
        target.keep_path(list(range(m)) + [m + node for node in path])
        draft.keep_path([node for node in path if node < fed])
    return run


def exact_sequence_distribution(chain, prompt, length) -> dict[tuple[int, ...], float]:
    """Every continuation of ``length`` tokens with its exact probability under a Markov chain."""
    return {sequence: chain.sequence_probability(prompt, sequence) for sequence in chain.all_continuations(length)}
