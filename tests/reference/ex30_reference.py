"""Exercise 30-eagle2-tree: an independent reference, written from the exercise text.

It imports nothing from solutions/ and keeps no head cache: the head's probabilities after a token
path come from exercise 22's reference, which recomputes the whole sequence with the path's own
predicted features appended (a causal layer gives a node the rows of its ancestors only, as the
tree mask does); the tree is exercise 24's reference dynamic_tree on those probabilities, so the
learner's shape is checked against the very rule it must equal. The head's calls are bookkeeping
from the expansion's order; the target's calls are recorded on a RecordingEagleModel, and the walk
is exercise 16's reference fed lazily (exercise 20's reference does the same).
"""

from __future__ import annotations

from functools import lru_cache

import torch

from speckata.decoding.sampling import next_token_probabilities
from speckata.decoding.tree_shapes import TreeShape
from speckata.heads.eagle import RecordingEagleModel
from tests.reference import ex16_reference
from tests.reference.ex01_reference import inverse_cdf
from tests.reference.ex18_reference import reference_mask, reference_positions
from tests.reference.ex20_reference import node_children, uniforms
from tests.reference.ex22_reference import reference_features
from tests.reference.ex24_reference import reference_dynamic_tree, top_tokens

# Two confidences (or probabilities) closer than this at a cut could be ordered either way by
# float rounding (a cache against a recomputation): the suite's cases are chosen to stay clear.
TIE_MARGIN = 1e-7


def head_probabilities(target, head, features, tokens):
    """draft_probs(token path): the head's float64 probabilities after the path, recomputed from row 0."""

    @lru_cache(maxsize=None)
    def draft_probs(path: tuple) -> tuple:
        feats, toks = features.clone(), [int(t) for t in tokens]
        with torch.no_grad():
            row = reference_features(head, target, feats, torch.tensor(toks))[-1]
            for token in path:
                feats, toks = torch.cat([feats, row[None]]), toks + [token]
                row = reference_features(head, target, feats, torch.tensor(toks))[-1]
            return tuple(torch.softmax((row @ target.head.weight.T).to(torch.float64), dim=-1).tolist())

    return draft_probs


def tokens_of(draft_probs, ranks: tuple, top_k: int) -> tuple:
    path = ()
    for rank in ranks:
        path += (top_tokens(list(draft_probs(path)), top_k)[rank],)
    return path


def clear_of_ties(draft_probs, asked, top_k, kept_count, depth) -> bool:
    """True when no cut of the expansion (a node's top_k, a level's top_k, the budget) is a near tie."""
    confidences = []
    for path in asked:
        row = sorted(draft_probs(path), reverse=True)
        if top_k < len(row) and row[top_k - 1] - row[top_k] < TIE_MARGIN:
            return False
        confidence = 1.0
        for i in range(len(path)):
            confidence *= draft_probs(path[:i])[path[i]]
        confidences += [confidence * p for p in row[:top_k]]
    ordered = sorted(confidences, reverse=True)
    return kept_count >= len(ordered) or ordered[kept_count - 1] - ordered[kept_count] >= TIE_MARGIN


def reference_tree(target, head, features, tokens, budget, top_k, depth, cached):
    """(shape, node tokens, the head's calls), the contract's, for a cache holding ``cached`` rows."""
    draft_probs = head_probabilities(target, head, features, tokens)
    kept, asked = reference_dynamic_tree(draft_probs, budget, top_k, depth)
    shape = TreeShape(kept)
    node_tokens = [tokens_of(draft_probs, ranks, top_k)[-1] for ranks in shape.paths]
    n = features.shape[0]
    calls = [("new", n - cached, cached)]
    calls += [("tree", top_k, n + level * top_k) for level in range(depth - 1)]
    if depth > 1:
        calls.append(("crop", n, n + (depth - 1) * top_k))
    assert clear_of_ties(draft_probs, asked, top_k, budget, depth), "a near tie: choose another case"
    return shape, node_tokens, calls


class ReferenceRun:
    def __init__(self):
        self.tokens, self.accepted_per_pass, self.drafted_per_pass, self.rounds = [], [], [], []
        self.target_passes = self.draft_passes = 0
        self.calls, self.head_calls = [], []
        self.recorder = self.generator_state = None  # the target's recorder (generator states too), the final state


def walk(shape, tokens, p, stream, lines):
    """The accepted nodes from the root down and the round's last token, with one line per decision."""
    kids, node, path = node_children(shape), -1, []
    while kids[node]:
        trace = ex16_reference.reference_trace(p[node], [tokens[kid] for kid in kids[node]], stream)
        lines += [f"node {node}: {event.kind} token {event.token}" for event in trace.events]
        accepted = [event.position for event in trace.events if event.kind == "accept"]
        if not accepted:
            return path, int(trace.tokens[0])
        node = kids[node][accepted[0]]
        path.append(node)
    token = inverse_cdf(p[node], next(stream))
    lines.append(f"node {node}: a leaf, bonus token {token}")
    return path, int(token)


@torch.no_grad()
def reference_generate(target, head, prompt, max_new_tokens, budget, top_k, depth, generator, temperature=1.0,
                       stale=0) -> ReferenceRun:
    model, run, stream = RecordingEagleModel(target, generator), ReferenceRun(), uniforms(generator)  # draws counted
    model.reset()
    run.head_calls.append(("reset", stale))
    sequence = [int(t) for t in prompt]
    if max_new_tokens > 0:
        features, logits = model.forward_new_hidden(list(sequence))
        run.target_passes = 1
        first = int(inverse_cdf(next_token_probabilities(logits[-1], temperature).numpy(), next(stream)))
        sequence.append(first)
        run.tokens.append(first)
        cached = 0
    while len(run.tokens) < max_new_tokens:
        levels = min(depth, max_new_tokens - len(run.tokens) - 1)
        shape, node_tokens = TreeShape([]), []
        if levels:
            nodes = min(budget, top_k + (levels - 1) * top_k * top_k)
            shape, node_tokens, calls = reference_tree(target, head, features, sequence[1:], nodes, top_k, levels,
                                                       cached)
            run.head_calls += calls
            run.draft_passes += levels
            cached = features.shape[0]
        start, pending = model.cache_length, sequence[model.cache_length:]
        m = len(pending)
        parents = [i - 1 for i in range(m)] + [m - 1 if parent < 0 else m + parent for parent in shape.parents]
        hidden, logits = model.forward_tree_hidden(pending + node_tokens, torch.tensor(reference_mask(parents, start)),
                                                   torch.tensor(reference_positions(parents, start)))
        p = {node: next_token_probabilities(logits[m + node], temperature).numpy() for node in range(-1, len(shape))}
        lines = []
        path, extra = walk(shape, node_tokens, p, stream, lines)
        new = [node_tokens[node] for node in path] + [extra]
        kept = list(range(m)) + [m + node for node in path]
        features = torch.cat([features, hidden[kept]])
        model.keep_path(kept)
        sequence += new
        run.tokens += new
        run.rounds.append(f"round {len(run.rounds) + 1}: {len(shape)} nodes {node_tokens[:8]}; " + "; ".join(lines))
        run.accepted_per_pass.append(len(path))
        run.drafted_per_pass.append(len(shape))
        run.target_passes += 1
    run.calls, run.recorder, run.generator_state = model.calls, model, generator.get_state()
    return run
