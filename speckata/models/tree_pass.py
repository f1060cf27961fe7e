"""The tree pass of the model interface (exercise 20): n tree nodes in ONE forward pass, then one path kept.

``model.forward_tree(ids, attention_mask, position_ids) -> logits``
    feed n >= 1 new tokens that sit side by side in the cache after its ``cache_length`` tokens;
    ``attention_mask`` is a bool tensor (n, cache_length + n): row i says which cached tokens and
    which of the n new ones token i sees (exercise 18's mask; it must see itself), and
    ``position_ids`` (n,) gives each one's position (exercise 18: L + depth). Row i of the logits
    is the next-token logits after token i, given what it sees. ONE pass, however large n is.
    Calls that follow one another extend the same tree (a draft builds its tree a level per call).
``model.keep_path(nodes)``
    the tree is every token fed by forward_tree since the last forward_new, crop, reset or
    keep_path; keep the tokens before it, then tree nodes ``nodes`` (indices counted from the
    tree's first node, increasing), moved into place; forget the rest of the tree. With no tree
    fed, only ``keep_path([])`` is valid (it changes nothing).
While a tree is pending, forward_new refuses (its causal mask would see every branch): keep a
path first. ``crop`` may still roll back to the tree's start or before it, dropping the tree.

>>> from speckata.models.markov import MarkovModel
>>> model = MarkovModel([[0.9, 0.1], [0.2, 0.8]])
>>> _ = model.forward_new([0])
>>> mask = torch.tensor([[1, 1, 0], [1, 0, 1]], dtype=torch.bool)   # two children of token 0
>>> model.forward_tree([0, 1], mask, [1, 1]).exp().round(decimals=2).tolist()
[[0.9, 0.1], [0.2, 0.8]]
>>> model.keep_path([1]); model.history
[0, 1]
"""

from __future__ import annotations

import torch

from speckata.checks.decoding import check_crop, check_new_ids
from speckata.token_ids import is_integer


def check_tree_feed(ids, attention_mask, position_ids, cache_length: int, vocab_size: int):
    """forward_tree's inputs as (int64 ids (n,), bool mask (n, cache_length + n), int64 positions (n,))."""
    ids = check_new_ids(ids, vocab_size)
    n = ids.shape[0]
    mask = torch.as_tensor(attention_mask)
    if mask.dtype != torch.bool or tuple(mask.shape) != (n, cache_length + n):
        raise ValueError(f"attention_mask must be a bool tensor of shape (n, cache_length + n) = ({n}, {cache_length + n}); "
                         f"got {mask.dtype} of shape {tuple(mask.shape)}")
    if not bool(mask[:, cache_length:].diagonal().all()):
        row = int((~mask[:, cache_length:].diagonal()).nonzero()[0])
        raise ValueError(f"attention_mask row {row} does not let tree token {row} see itself")
    positions = torch.as_tensor(position_ids)
    if positions.dtype.is_floating_point or positions.dtype == torch.bool or tuple(positions.shape) != (n,):
        raise ValueError(f"position_ids must be an integer tensor of shape ({n},); "
                         f"got {positions.dtype} of shape {tuple(positions.shape)}")
    if n and int(positions.min()) < 0:
        raise ValueError(f"position_ids must be >= 0; got {positions.tolist()}")
    return ids, mask, positions.to(torch.int64)


def check_kept_nodes(nodes, tree_size: int) -> list[int]:
    """keep_path's nodes as increasing ints in [0, tree_size)."""
    values = nodes.tolist() if isinstance(nodes, torch.Tensor) else list(nodes)
    for index, node in enumerate(values):
        if not is_integer(node):
            raise ValueError(f"keep_path needs integer node indices; nodes[{index}] = {node!r}")
        if not 0 <= int(node) < tree_size:
            raise ValueError(f"keep_path: node {int(node)} is out of range: the pending tree has {tree_size} nodes")
        if index and int(node) <= int(values[index - 1]):
            raise ValueError(f"keep_path needs increasing node indices (a path from the root down); got {values}")
    return [int(node) for node in values]


class PendingTree:
    """Where the pending tree starts in a model's cache (None: no tree), and the rules on it."""

    def __init__(self):
        self.start: int | None = None

    def grow(self, cache_length: int) -> None:
        if self.start is None:
            self.start = cache_length

    def refuse_forward_new(self) -> None:
        if self.start is not None:
            raise ValueError("a token tree is pending in the cache: call keep_path(nodes) (or crop) before forward_new")

    def cropped(self, length, cache_length: int) -> int:
        """A model's crop of its ``cache_length`` tokens to ``length``, checked (check_crop, then crop's
        rule on a pending tree): returns the length to keep."""
        length = check_crop(length, cache_length)
        self.crop(length)
        return length

    def crop(self, length: int) -> None:
        if self.start is not None:
            if length > self.start:
                raise ValueError(f"cannot crop to {length} inside a pending token tree (it starts at {self.start}): "
                                 "call keep_path(nodes) to keep one path")
            self.start = None

    def kept(self, nodes, cache_length: int) -> tuple[int, list[int]]:
        """(the tree's start, the checked nodes) and the tree is no longer pending."""
        start = cache_length if self.start is None else self.start
        nodes = check_kept_nodes(nodes, cache_length - start)
        self.start = None
        return start, nodes
