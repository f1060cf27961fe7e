"""Exercise 30-eagle2-tree: reference solution. The exercise text is in exercises/ex30_eagle2_tree.py."""

import torch
from ex18_tree_attention_mask import tree_attention_mask, tree_position_ids
from ex28_eagle_head_cache import eagle_head_step

from speckata.decoding.baseline import SpeculativeResult, check_count
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token
from speckata.decoding.tree_shapes import TreeShape
from speckata.heads.eagle import check_eagle_inputs, check_features

# Less mass than this is rounding alone (exercise 16's rule).
MASS_EPS = 1e-12


def check_tree_settings(vocab_size, budget, top_k, depth):
    top_k, depth, budget = check_count("top_k", top_k, 1), check_count("depth", depth, 1), check_count("budget", budget, 1)
    if top_k > vocab_size:
        raise ValueError(f"top_k = {top_k} is more tokens than the vocabulary's {vocab_size}")
    if budget > top_k + (depth - 1) * top_k * top_k:
        raise ValueError(f"budget = {budget} is more nodes than the expansion makes ({top_k} + {depth - 1} x {top_k}^2)")


def head_ranking(target, predicted, top_k):
    """The head's top_k tokens (ties: the lower id first) and their probabilities, at temperature 1."""
    probs = torch.softmax(target.head(predicted).to(torch.float64), dim=-1)
    best = torch.argsort(probs, descending=True, stable=True)[:top_k].tolist()
    return best, [float(probs[token]) for token in best]


@torch.no_grad()
def eagle2_tree(target, head, features, tokens, budget, top_k, depth):
    features, tokens = check_features(head, target, features, tokens)
    if features.ndim != 2 or features.shape[0] < 1:
        raise ValueError(f"features must be one sequence's, of shape (n >= 1, width); got {tuple(features.shape)}")
    check_tree_settings(target.vocab_size, budget, top_k, depth)
    n, cached = features.shape[0], head.cache_length
    if cached >= n:
        raise ValueError(f"the head's cache holds {cached} rows but the features only {n}: the cache must hold "
                         f"fewer rows than the features (crop it to the rows of the target's true features)")
    root = eagle_head_step(head, target, features[cached:], tokens[cached:])[-1]
    made = []  # per node made: [confidence, depth, token, parent (index in made or -1), rank]
    rows = {-1: None}  # the head-cache row of each expanded node (-1: the root, a true row)
    predicted = {-1: root}
    layer = [-1]
    for level in range(1, depth + 1):
        chosen = sorted(sorted(layer, key=lambda i: -made[i][0] if i >= 0 else -1.0)[:top_k])
        if level > 1:  # the chosen nodes' rows, in one call: each sees the true rows and its ancestors
            start = head.cache_length
            mask = torch.zeros(len(chosen), start + len(chosen), dtype=torch.bool)
            mask[:, :n] = True
            for j, node in enumerate(chosen):
                mask[j, start + j] = True
                ancestor = made[node][3]
                while ancestor != -1:
                    mask[j, rows[ancestor]] = True
                    ancestor = made[ancestor][3]
            fused = head.fc(torch.cat([target.token_embedding(torch.tensor([made[i][2] for i in chosen])),
                                       torch.stack([predicted[made[i][3]] for i in chosen])], dim=-1))
            out = head.forward_tree(fused, mask)
            for j, node in enumerate(chosen):
                rows[node], predicted[node] = start + j, out[j]
        layer = []
        for node in chosen:
            confidence = 1.0 if node == -1 else made[node][0]
            best, probs = head_ranking(target, predicted[node], top_k)
            for rank, (token, prob) in enumerate(zip(best, probs)):
                layer.append(len(made))
                made.append([confidence * prob, level, token, node, rank])
    if head.cache_length > n:
        head.crop(n)
    kept = sorted(range(len(made)), key=lambda i: (-made[i][0], made[i][1], i))[:budget]

    def ranks(i):
        return () if i == -1 else ranks(made[i][3]) + (made[i][4],)

    shape = TreeShape([ranks(i) for i in kept])
    token_of = {ranks(i): made[i][2] for i in kept}
    return shape, [token_of[path] for path in shape.paths]


def try_top_k(p, candidates, generator):
    """Exercise 16's rule for deterministic candidates: the accepted index, or None and the token."""
    left = p.clone()
    for index, x in enumerate(candidates):
        if draw_uniform(generator) < float(left[x] / left.sum()):
            return index, None
        left[x] = 0.0
        if float(left.sum()) <= MASS_EPS:
            return None, sample_token(p, generator)
    return None, sample_token(left, generator)


def walk(shape, tokens, p, generator):
    """The accepted nodes from the root down, and the correction or bonus token."""
    node, path = -1, []
    while kids := shape.children(node):
        index, token = try_top_k(p[node], [tokens[kid] for kid in kids], generator)
        if index is None:
            return path, token
        node = kids[index]
        path.append(node)
    return path, sample_token(p[node], generator)


@torch.no_grad()
def eagle2_generate(target, head, prompt_ids, max_new_tokens, budget, top_k, depth, generator, temperature=1.0):
    sequence = check_eagle_inputs(target, head, prompt_ids, max_new_tokens, 1, temperature)
    check_tree_settings(target.vocab_size, budget, top_k, depth)
    target.reset()
    head.reset()
    result = SpeculativeResult()
    if max_new_tokens == 0:
        return result
    features, logits = target.forward_new_hidden(sequence)
    result.target_passes += 1
    token = sample_token(next_token_probabilities(logits[-1], temperature), generator)
    sequence.append(token)
    result.tokens.append(token)
    while len(result.tokens) < max_new_tokens:
        levels = min(depth, max_new_tokens - len(result.tokens) - 1)
        shape, tokens = TreeShape([]), []
        if levels:
            nodes = min(budget, top_k + (levels - 1) * top_k * top_k)
            shape, tokens = eagle2_tree(target, head, features, torch.tensor(sequence[1:]), nodes, top_k, levels)
            result.draft_passes += levels
        pending = sequence[target.cache_length:]
        m, start = len(pending), target.cache_length
        parents = list(range(-1, m - 1)) + [m - 1 if parent == -1 else m + parent for parent in shape.parents]
        hidden, logits = target.forward_tree_hidden(pending + tokens, tree_attention_mask(parents, start),
                                                    tree_position_ids(parents, start))
        probs = next_token_probabilities(logits, temperature)
        path, extra = walk(shape, tokens, {node: probs[m + node] for node in range(-1, len(shape))}, generator)
        new = [tokens[node] for node in path] + [extra]
        sequence += new
        result.tokens += new
        kept = list(range(m)) + [m + node for node in path]
        features = torch.cat([features, hidden[kept]])
        target.keep_path(kept)
        result.accepted_per_pass.append(len(path))
        result.drafted_per_pass.append(len(shape))
        result.target_passes += 1
    return result
