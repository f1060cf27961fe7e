"""Exercise 20-tree-verification: reference solution. The exercise text is in exercises/ex20_tree_verification.py."""

import torch
from ex18_tree_attention_mask import tree_attention_mask, tree_position_ids

from speckata.decoding.baseline import SpeculativeResult
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token
from speckata.decoding.tree_shapes import check_tree_generation_inputs

# Less mass than this is rounding alone (the rules of exercises 15 and 16).
MASS_EPS = 1e-12


def children_of(logits, count, children, generator, temperature):
    """``count`` child tokens of one node: the draft's top ranks, or samples from q."""
    if children == "top_k":
        return torch.argsort(logits, descending=True, stable=True)[:count].tolist()
    q = next_token_probabilities(logits, temperature)
    return [sample_token(q, generator) for _ in range(count)]


def draft_tree(draft, sequence, shape, generator, temperature, children):
    """The tree's tokens, the draft's logits at the newest token (-1) and every fed node, and how many
    tree nodes the draft was fed; one forward_new, then one forward_tree per level that has children."""
    tokens = [0] * len(shape)
    logits = {-1: draft.forward_new(sequence[draft.cache_length :])[-1]}
    start, fed = draft.cache_length, 0
    for depth, (first, end) in enumerate(shape.levels, start=1):
        for parent in ([-1] if depth == 1 else range(*shape.levels[depth - 2])):
            kids = shape.children(parent)
            for node, token in zip(kids, children_of(logits[parent], len(kids), children, generator, temperature)):
                tokens[node] = token
        if depth == len(shape.levels):
            break  # the deepest level's children are never needed
        mask = tree_attention_mask(shape.parents[:end], start)[first:]
        positions = tree_position_ids(shape.parents[:end], start)[first:]
        rows = draft.forward_tree(tokens[first:end], mask, positions)
        logits.update({node: rows[node - first] for node in range(first, end)})
        fed = end
    return tokens, logits, fed


def try_sampled(p, q, candidates, generator):
    """SpecInfer's rule (exercise 15): the index of the accepted candidate, or None and the token."""
    target = p
    for index, x in enumerate(candidates):
        if draw_uniform(generator) < float(target[x] / q[x]):
            return index, None
        residual = torch.clamp(target - q, min=0.0)
        if float(residual.sum()) > MASS_EPS:  # after a rejection the target is the residual
            target = residual / residual.sum()
    return None, sample_token(target, generator)


def try_top_k(p, candidates, generator):
    """The deterministic-draft rule (exercise 16): the index of the accepted candidate, or None and the token."""
    left = p.clone()
    for index, x in enumerate(candidates):
        if draw_uniform(generator) < float(left[x] / left.sum()):
            return index, None
        left[x] = 0.0
        if float(left.sum()) <= MASS_EPS:
            return None, sample_token(p, generator)
    return None, sample_token(left, generator)


def walk(shape, tokens, p, q, generator, children):
    """The accepted nodes from the root down, and the correction or bonus token."""
    node, path = -1, []
    while kids := shape.children(node):
        candidates = [tokens[kid] for kid in kids]
        if children == "top_k":
            index, token = try_top_k(p[node], candidates, generator)
        else:
            index, token = try_sampled(p[node], q[node], candidates, generator)
        if index is None:
            return path, token
        node = kids[index]
        path.append(node)
    return path, sample_token(p[node], generator)  # a leaf was accepted: the bonus token


def tree_speculative_generate(target, draft, prompt_ids, max_new_tokens, tree, generator, temperature=1.0,
                              children="top_k"):
    sequence, full_shape = check_tree_generation_inputs(target, draft, prompt_ids, max_new_tokens, tree,
                                                         temperature, children)
    target.reset()
    draft.reset()
    result = SpeculativeResult()
    while len(result.tokens) < max_new_tokens:
        shape = full_shape.truncated(max_new_tokens - len(result.tokens) - 1)
        tokens, draft_logits, fed = [], {}, 0
        if len(shape):
            tokens, draft_logits, fed = draft_tree(draft, sequence, shape, generator, temperature, children)
            result.draft_passes += 1 + len(shape.levels) - 1
        # One target pass: the tokens its cache lacks (a chain) and the tree hanging from the newest.
        pending = sequence[target.cache_length :]
        m, start = len(pending), target.cache_length
        parents = list(range(-1, m - 1)) + [m - 1 if parent == -1 else m + parent for parent in shape.parents]
        logits = target.forward_tree(pending + tokens, tree_attention_mask(parents, start),
                                     tree_position_ids(parents, start))
        probs = next_token_probabilities(logits, temperature)
        p = {node: probs[m + node] for node in range(-1, len(shape))}
        q = {node: next_token_probabilities(row, temperature) for node, row in draft_logits.items()}
        path, extra = walk(shape, tokens, p, q, generator, children)
        new = [tokens[node] for node in path] + [extra]
        sequence += new
        result.tokens += new
        result.accepted_per_pass.append(len(path))
        result.drafted_per_pass.append(len(shape))
        result.target_passes += 1
        target.keep_path(list(range(m)) + [m + node for node in path])
        draft.keep_path([node for node in path if node < fed])
    return result
