"""EAGLE-2's dynamic draft tree on SmolLM2-135M (exercise 30's algorithm on the real target).

Each round:

1. The head (``eagle_head.HeadRunner``, its own key/value cache) takes the target's true features of
   the tokens kept last round, then grows a tree level by level: at every level the ``top_k``
   nodes with the largest confidence (the product of the head's probabilities along the path, at
   temperature 1, over its K-token draft vocabulary) are expanded, each into its ``top_k`` likeliest
   next tokens. The expanded nodes' rows go into the head's cache *with a tree mask* (each row sees
   the true rows and its own ancestors, none of its cousins; the head has no position embedding,
   its features carry the position): one head step per level, never recomputed. After the round
   the tree rows are dropped (the cache length goes back to the true rows), and the next round
   appends the target's true features of the kept tokens in their place, as EAGLE does.
2. Every node made is reranked by confidence and the best ``budget`` kept (a parent is always at
   least as confident as its child, so the kept nodes form a tree).
3. ONE target pass over the pending token and the tree (``LeanLlama.forward_tree``: exercise 18's
   mask and positions, cache length + depth), then exercise 20's ``walk`` with deterministic
   top-k candidates (exercise 16's rule, the one exercise 30 uses) picks the path, and
   ``keep_path`` compacts that path's keys and values into the target's cache.

The target's logits are computed only for the rows the walk reads (a lazy mapping): one row through
the 49152-word output layer costs about a fifth of a one-token pass, and a tree's walk reads at
most depth + 1 of its rows.

Exactness: the candidates are deterministic given the context, so exercise 16's rule keeps the
target's distribution at any temperature; at temperature 0 p is one-hot and the walk keeps the
target's argmax at every step: the tokens of plain greedy decoding.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from speckata.checks.decoding import check_count, check_prompt, check_temperature
from speckata.decoding.results import SpeculativeResult
from speckata.decoding.tree_shapes import TreeShape


def check_tree_settings(vocab: int, budget, top_k, depth) -> tuple[int, int, int]:
    """(budget, top_k, depth) as ints, or a ValueError naming the one that is out of range."""
    budget, top_k, depth = check_count("budget", budget, 1), check_count("top_k", top_k, 1), check_count("depth", depth, 1)
    if top_k > vocab:
        raise ValueError(f"top_k = {top_k} is outside 1..{vocab}: the head drafts from {vocab} tokens")
    if budget > top_k + (depth - 1) * top_k * top_k:
        raise ValueError(f"budget = {budget} is more nodes than the expansion makes ({top_k} + {depth - 1} x {top_k}^2)")
    return budget, top_k, depth


class LazyRows(dict):
    """node -> the target's next-token probabilities after tree row ``offset + node``, made on first read."""

    def __init__(self, hidden, output, offset, temperature):
        super().__init__()
        self.hidden, self.output, self.offset, self.temperature = hidden, output, offset, temperature

    def __missing__(self, node):
        from speckata.real.lookup import probabilities

        self[node] = probabilities(F.linear(self.hidden[self.offset + node][None], self.output), self.temperature)[0]
        return self[node]


@torch.inference_mode()
def draft_tree(runner, features, tokens, budget: int, top_k: int, depth: int):
    """The head's dynamic tree: (TreeShape, its tokens, head steps). ``features``/``tokens``: the true
    rows the head's cache lacks (the target's features and the token after each)."""
    tree_attention_mask = _graded("ex18_tree_attention_mask", "tree_attention_mask")
    verified = runner.length + features.shape[0]
    predicted = {-1: runner._step(features, tokens)[-1]}
    made = []  # per node: [confidence, depth, token, parent (index in made, -1: root), rank]
    rows = {-1: -1}  # the head's tree row of each expanded node, counted from the true rows' end
    row_parents = []  # the tree rows' own parent array, for exercise 18's mask
    layer, steps = [-1], 1
    for level in range(1, depth + 1):
        chosen = sorted(sorted(layer, key=lambda i: -made[i][0] if i >= 0 else -1.0)[:top_k])
        if level > 1:  # the chosen nodes' rows in one step, each seeing the true rows and its ancestors
            first = len(row_parents)
            row_parents += [rows[made[node][3]] for node in chosen]
            mask = tree_attention_mask(row_parents, verified)[first:]
            out = runner._step(torch.stack([predicted[made[i][3]] for i in chosen]), [made[i][2] for i in chosen], mask)
            steps += 1
            for j, node in enumerate(chosen):
                rows[node], predicted[node] = first + j, out[j]
        probs = torch.softmax(F.linear(torch.stack([predicted[i] for i in chosen]), runner.rows).double(), dim=-1)
        best = torch.argsort(probs, dim=-1, descending=True, stable=True)[:, :top_k]
        layer = []
        for row, node in enumerate(chosen):
            confidence = 1.0 if node == -1 else made[node][0]
            for rank, index in enumerate(best[row].tolist()):
                layer.append(len(made))
                made.append([confidence * float(probs[row, index]), level, runner.token_map[index], node, rank])
    runner.length = verified  # the tree rows are dropped; next round's true rows replace them
    kept = sorted(range(len(made)), key=lambda i: (-made[i][0], made[i][1], i))[:budget]

    def ranks(i):
        return () if i == -1 else ranks(made[i][3]) + (made[i][4],)

    shape = TreeShape([ranks(i) for i in kept])
    token_of = {ranks(i): made[i][2] for i in kept}
    return shape, [token_of[path] for path in shape.paths], steps


@torch.inference_mode()
def eagle2_generate(target, head, prompt_ids, max_new_tokens: int, budget: int, top_k: int, depth: int,
                    generator: torch.Generator, temperature: float = 1.0, walk=None) -> SpeculativeResult:
    """``max_new_tokens`` tokens from ``target`` (a ``FeatureTarget``), each round one EAGLE-2 tree of at
    most ``budget`` nodes (``top_k`` per expansion, ``depth`` levels) verified in one tree pass with
    exercise 20's ``walk`` (from ``solutions/`` by default). ``drafted_per_pass``: the tree's nodes."""
    from speckata.real.eagle_head import HeadRunner, first_token

    if walk is None:
        from speckata.real.graded import graded_function

        walk = graded_function("ex20_tree_verification", "walk")
    tree_attention_mask = _graded("ex18_tree_attention_mask", "tree_attention_mask")
    tree_position_ids = _graded("ex18_tree_attention_mask", "tree_position_ids")
    sequence = check_prompt(prompt_ids, target.lean.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    budget, top_k, depth = check_tree_settings(int(head.token_map.shape[0]), budget, top_k, depth)
    check_temperature(temperature)
    runner, result = HeadRunner(head, target), SpeculativeResult()
    if max_new_tokens == 0:
        return result
    pending = first_token(target, sequence, generator, temperature, result)
    output = target.lean.output
    while len(result.tokens) < max_new_tokens:
        levels = min(depth, max_new_tokens - len(result.tokens) - 1)
        shape, tokens = TreeShape([]), []
        if levels:
            nodes = min(budget, top_k + (levels - 1) * top_k * top_k)
            shape, tokens, steps = draft_tree(runner, pending, sequence[runner.length + 1:], nodes, top_k, levels)
            result.draft_passes += steps
        fed = sequence[target.cache_length:]
        m, start = len(fed), target.cache_length
        parents = list(range(-1, m - 1)) + [m - 1 if parent == -1 else m + parent for parent in shape.parents]
        hidden = target.forward_tree_hidden(fed + tokens, tree_attention_mask(parents, start),
                                            tree_position_ids(parents, start))
        path, extra = walk(shape, tokens, LazyRows(hidden, output, m, temperature), {}, generator, "top_k")
        new = [tokens[node] for node in path] + [extra]
        kept = list(range(m)) + [m + node for node in path]
        target.keep_path(kept)
        pending = hidden[kept]  # the target's features of the tokens it kept: the head's next true rows
        sequence += new
        result.tokens += new
        result.accepted_per_pass.append(len(path))
        result.drafted_per_pass.append(len(shape))
        result.target_passes += 1
    return result


def _graded(module: str, name: str):
    from speckata.real.graded import graded_function

    return graded_function(module, name)
