"""EAGLE's head cache (exercise 28): the keys and values of the head's decoder layer, kept across steps.

Exercise 22's head recomputes its decoder layer over the whole sequence at every draft step: the
layer is causal, so every row but the last comes out as before, and a step costs as many rows as
the sequence is long. EAGLE (SafeAILab/EAGLE, eagle/model/cnets.py) keeps the layer's keys and
values instead (its ``stable_kv``, the draft's past_key_values), so a step computes one row:

    head.forward_new(fused)   fused (n, width), fc's output of n new rows -> their features (n, width),
                              attending to the cached rows and to themselves (causal); the cache grows by n
    head.crop(length)         keep the first ``length`` rows (the target's crop, for the head)
    head.reset()              forget every row;  head.cache_length: how many rows it holds

``HeadCache`` holds the tensors (heads, rows, inner / heads); ``EagleHead`` owns one and
``DecoderLayer.forward_cached`` reads and extends it. ``RecordingEagleHead``
(speckata.heads.eagle) counts the rows a decoder makes the head compute, cached or not.

>>> import torch
>>> from speckata.heads.eagle import EagleHead
>>> head = EagleHead(8, heads=2, inner=4, mlp_width=4).eval()
>>> fused = torch.randn(5, 8, generator=torch.Generator().manual_seed(0))
>>> whole = head.layer(fused)                       # no cache: all five rows at once
>>> rows = torch.cat([head.forward_new(fused[:3]), head.forward_new(fused[3:4]), head.forward_new(fused[4:])])
>>> torch.allclose(rows, whole, atol=1e-6), head.cache_length
(True, 5)
>>> head.crop(3); head.cache_length
3
>>> head.crop(4)
Traceback (most recent call last):
ValueError: cannot crop to 4: the cache holds 3 tokens (crop only rolls back)

Exercise 30 (EAGLE-2's tree) computes the rows of several tree nodes in one call: with exercise
18's mask each row sees the cached rows, its ancestors and itself, and comes out as its own path
fed through ``forward_new``:

    head.forward_tree(fused, mask)  fused (n, width), mask (n, cache_length + n) bool -> (n, width);
                                    the cache grows by n (crop to the true rows afterwards)

>>> mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 1, 0], [1, 1, 1, 1, 0, 1]], dtype=torch.bool)
>>> tree = head.forward_tree(fused[:3], mask)      # node 0, node 1 (siblings), node 2 (child of node 0)
>>> head.crop(3); path = torch.cat([head.forward_new(fused[:1]), head.forward_new(fused[2:3])])
>>> head.crop(3); alone = head.forward_new(fused[1:2])
>>> torch.allclose(tree[[0, 2]], path, atol=1e-6), torch.allclose(tree[1], alone[0], atol=1e-6)
(True, True)
"""

from __future__ import annotations

import torch

from speckata.checks.decoding import check_crop


class HeadCache:
    """The decoder layer's keys and values of the rows computed so far, each (heads, rows, inner / heads)."""

    def __init__(self):
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    @property
    def length(self) -> int:
        return 0 if self.keys is None else self.keys.shape[-2]

    def extend(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append n rows' keys and values (heads, n, inner / heads); return all the cached ones."""
        if self.keys is None or self.keys.dtype != keys.dtype:
            self.keys, self.values = keys, values
        else:
            self.keys, self.values = torch.cat([self.keys, keys], dim=-2), torch.cat([self.values, values], dim=-2)
        return self.keys, self.values

    def crop(self, length: int) -> None:
        length = check_crop(length, self.length)
        if length == 0:
            self.keys = self.values = None
        elif self.keys is not None:
            self.keys, self.values = self.keys[..., :length, :], self.values[..., :length, :]


def check_fused(fused, width: int) -> torch.Tensor:
    """What ``forward_new`` reads: fc's output for n >= 1 new rows of one sequence, (n, width)."""
    if not isinstance(fused, torch.Tensor) or not fused.is_floating_point() or fused.ndim != 2 \
            or fused.shape[0] < 1 or fused.shape[1] != width:
        raise ValueError(f"forward_new reads fc's output for n >= 1 new rows of one sequence, a floating-point "
                         f"tensor of shape (n, {width}); got {fused!r:.80}")
    return fused


def check_head_mask(mask, n: int, cached: int) -> torch.Tensor:
    """What ``forward_tree`` reads: which rows each of n new rows sees, (n, cached + n) bool, itself included."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or tuple(mask.shape) != (n, cached + n):
        raise ValueError(f"the tree mask must be a bool tensor of shape ({n}, {cached + n}): the {n} new rows by the "
                         f"{cached} cached rows and themselves; got {mask!r:.80}")
    if not bool(mask[:, cached:].diagonal().all()):
        raise ValueError("every new row must see itself: the tree mask's diagonal over the new rows must be True")
    return mask
