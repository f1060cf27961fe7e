"""Exercise 29-medusa-tree: reference solution. The exercise text is in exercises/ex29_medusa_tree.py."""

import heapq

import torch
from ex16_top_k_drafts import verify_top_k
from ex18_tree_attention_mask import tree_attention_mask, tree_position_ids
from ex21_medusa_heads import medusa_logits

from speckata.decoding.baseline import SpeculativeResult
from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities, sample_token
from speckata.decoding.tree_shapes import TreeShape
from speckata.heads.medusa_tree_checks import check_accuracy_inputs, check_medusa_tree_inputs, check_tree_budget


def ranked(logits):
    """Token ids from the largest logit down; among equal logits the lower id first."""
    return torch.argsort(logits, descending=True, stable=True)


@torch.no_grad()
def head_accuracies(target, heads, ids, top):
    ids, top = check_accuracy_inputs(target, heads, ids, top)
    target.reset()
    hidden, _ = target.forward_new_hidden(ids)
    guesses = ranked(medusa_logits(heads, hidden))[..., :top]  # (K, T, top)
    truth = torch.tensor(ids)
    rows = []
    for k in range(heads.num_heads):
        positions = len(ids) - (k + 2)  # t = 0 .. positions - 1 has a token k + 2 ahead
        hits = guesses[k, :positions] == truth[k + 2:, None]  # (positions, top)
        rows.append(hits.to(torch.float64).mean(dim=0))
    return torch.stack(rows)


def medusa_tree(accuracies, budget):
    table, budget = check_tree_budget(accuracies, budget)
    num_heads, top = table.shape
    products, frontier, chosen = {(): 1.0}, [], []

    def offer(path):  # its product: the parent's times its own share, multiplied from head 0 on
        product = products[path[:-1]] * float(table[len(path) - 1, path[-1]])
        heapq.heappush(frontier, (-product, len(path), path))

    # A path joins the frontier once its parent and its previous sibling are in the tree; the
    # frontier's best (largest product, then shallower, then smaller ranks) joins the tree.
    offer((0,))
    while len(chosen) < budget:
        negative, depth, path = heapq.heappop(frontier)
        products[path] = -negative
        chosen.append(path)
        if path[-1] + 1 < top:
            offer(path[:-1] + (path[-1] + 1,))  # its next sibling
        if depth < num_heads:
            offer(path + (0,))  # its first child
    return TreeShape(chosen)


@torch.no_grad()
def medusa_tree_generate(target, heads, prompt_ids, max_new_tokens, tree, generator, temperature=1.0):
    sequence, full_shape = check_medusa_tree_inputs(target, heads, prompt_ids, max_new_tokens, tree, temperature)
    target.reset()
    result = SpeculativeResult()
    if max_new_tokens == 0:
        return result
    hidden, logits = target.forward_new_hidden(sequence)
    result.target_passes += 1
    state = hidden[-1]  # the last kept position's hidden state: the heads read it
    token = sample_token(next_token_probabilities(logits[-1], temperature), generator)
    sequence.append(token)
    result.tokens.append(token)
    while len(result.tokens) < max_new_tokens:
        shape = full_shape.truncated(max_new_tokens - len(result.tokens) - 1)
        head_logits = medusa_logits(heads, state)  # (K, V)
        rankings = ranked(head_logits)
        tokens = [int(rankings[len(path) - 1, path[-1]]) for path in shape.paths]
        # ONE pass: the newest token (row 0, the only one the cache lacks), then the tree hanging from it.
        parents = [-1] + [parent + 1 for parent in shape.parents]
        start = target.cache_length
        hidden, logits = target.forward_tree_hidden([token] + tokens, tree_attention_mask(parents, start),
                                                    tree_position_ids(parents, start))
        result.target_passes += 1
        p = next_token_probabilities(logits, temperature)
        path, token = walk(shape, tokens, p, head_logits, temperature, generator)
        target.keep_path([0] + [1 + node for node in path])
        state = hidden[1 + path[-1] if path else 0]
        new = [tokens[node] for node in path] + [token]
        sequence += new
        result.tokens += new
        result.accepted_per_pass.append(len(path))
        result.drafted_per_pass.append(len(shape))
    return result


def walk(shape, tokens, p, head_logits, temperature, generator):
    """The accepted nodes from the root down, and the correction or bonus token."""
    node, path = -1, []
    while kids := shape.children(node):
        depth = 0 if node == -1 else shape.depths[node]  # the children come from head `depth`
        q = next_token_probabilities(head_logits[depth], temperature)
        candidates = [tokens[kid] for kid in kids]
        token = verify_top_k(p[node + 1].numpy(), candidates, q.numpy(), GeneratorRNG(generator))
        if token not in candidates:
            return path, token  # the correction
        node = kids[candidates.index(token)]
        path.append(node)
    return path, sample_token(p[node + 1], generator)  # a leaf was accepted: the bonus token
