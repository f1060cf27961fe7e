"""The input checks of exercise 29 (Medusa's heads read as a tree), given: each ValueError names its argument.

Phrases the grading suite looks for: "ids", "top" (head_accuracies), "accuracies", "budget"
(medusa_tree), "tree", "temperature", "forward_tree_hidden" (medusa_tree_generate), and exercise
21's ("prompt", "max_new_tokens", "width", "vocabulary", "forward_new_hidden").

>>> check_tree_budget([[0.5, 0.25]], 2)[1]
2
>>> check_tree_budget([[0.5, 0.25]], 3)
Traceback (most recent call last):
...
ValueError: budget 3 is more than the 2 rank paths that 1 heads and 2 ranks give
"""

from __future__ import annotations

import torch

from speckata.checks.decoding import as_id_list, check_temperature
from speckata.decoding.tree_shapes import TreeShape
from speckata.heads.medusa import check_heads_fit, check_medusa_inputs
from speckata.token_ids import checked_count, checked_token_ids


def check_accuracy_inputs(target, heads, ids, top) -> tuple[list[int], int]:
    """(ids as a list of ints, top as an int) for head_accuracies."""
    check_heads_fit(target, heads)
    values = checked_token_ids("ids", as_id_list("ids", ids), target.vocab_size)
    if len(values) < heads.num_heads + 2:
        raise ValueError(f"ids holds {len(values)} tokens; {heads.num_heads} heads need at least "
                         f"{heads.num_heads + 2} (head k is scored where the token k + 2 ahead exists)")
    top = checked_count("top", top, 1)
    if top > target.vocab_size:
        raise ValueError(f"top must be at most the vocabulary's {target.vocab_size} tokens; got {top}")
    return values, top


def path_count(num_heads: int, top: int) -> int:
    """How many rank paths of depth 1 .. num_heads with ranks < top exist."""
    return sum(top ** depth for depth in range(1, num_heads + 1))


def check_tree_budget(accuracies, budget) -> tuple[torch.Tensor, int]:
    """(accuracies as a float64 tensor (K, top) of values in [0, 1], budget as an int) for medusa_tree."""
    try:
        table = torch.as_tensor(accuracies, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(f"accuracies must be a table of numbers (K heads, top ranks); got {accuracies!r:.80}") from None
    if table.ndim != 2 or 0 in table.shape:
        raise ValueError(f"accuracies must be 2-D (K heads, top ranks), neither axis empty; got shape {tuple(table.shape)}")
    if bool(table.isnan().any()) or bool((table < 0).any()) or bool((table > 1).any()):
        raise ValueError(f"accuracies must be shares in [0, 1] (no NaN); got {table.tolist()}")
    budget = checked_count("budget", budget, 1)
    total = path_count(*table.shape)
    if budget > total:
        raise ValueError(f"budget {budget} is more than the {total} rank paths that {table.shape[0]} heads and "
                         f"{table.shape[1]} ranks give")
    return table, budget


def check_medusa_tree_inputs(target, heads, prompt_ids, max_new_tokens, tree, temperature) -> tuple[list[int], TreeShape]:
    """(the prompt as a list of ints, the tree as a non-empty TreeShape the heads can fill) for medusa_tree_generate."""
    prompt = check_medusa_inputs(target, heads, prompt_ids, max_new_tokens)
    missing = [name for name in ("forward_tree_hidden", "keep_path") if not hasattr(target, name)]
    if missing:
        raise ValueError(f"the target must offer forward_tree_hidden(ids, mask, positions) -> (hidden, logits) and "
                         f"keep_path(nodes) (a speckata.models.gpt.GPT does); {type(target).__name__} lacks "
                         f"{', '.join(missing)}")
    check_temperature(temperature)
    shape = TreeShape(tree)
    if not len(shape):
        raise ValueError("the tree is empty: give at least one rank path, such as [(0,)]")
    if max(shape.depths) > heads.num_heads:
        raise ValueError(f"the tree is {max(shape.depths)} deep but there are only {heads.num_heads} heads: "
                         "the node at depth d takes head d - 1's token")
    if max(max(path) for path in shape.paths) >= target.vocab_size:
        raise ValueError(f"the tree holds rank {max(max(path) for path in shape.paths)}, but a head ranks only "
                         f"{target.vocab_size} tokens")
    return prompt, shape
