"""Exercise 25-ragged-batch: the reference's ragged feed, built independently of solutions/.

``ragged_feed(lengths, new_tokens)`` is what the contract (speckata/models/ragged.py) asks a
caller to hand ``forward_rows``: row b's new tokens padded with PAD to the longest, the mask over
key slots 0 .. max(lengths) + n - 1 in which real token i of row b sees slots 0 .. L_b + i, and
the positions L_b + i (padding: an all-False mask row, position 0).

>>> ids, mask, positions = ragged_feed([2, 0], [[5], [6, 7]])
>>> ids.tolist(), positions.tolist()
([[5, -1], [6, 7]], [[2, 0], [0, 1]])
>>> mask.int().tolist()
[[[1, 1, 1, 0], [0, 0, 0, 0]], [[1, 0, 0, 0], [1, 1, 0, 0]]]
"""

from __future__ import annotations

import torch

PAD = -1


def ragged_feed(lengths: list[int], new_tokens: list[list[int]]):
    """(ids (B, n), attention_mask (B, n, max(lengths) + n), position_ids (B, n)) for forward_rows."""
    n = max(len(tokens) for tokens in new_tokens)
    width = max(lengths) + n
    ids = torch.full((len(lengths), n), PAD, dtype=torch.int64)
    mask = torch.zeros((len(lengths), n, width), dtype=torch.bool)
    positions = torch.zeros((len(lengths), n), dtype=torch.int64)
    for row, (length, tokens) in enumerate(zip(lengths, new_tokens)):
        for i, token in enumerate(tokens):
            ids[row, i] = token
            mask[row, i, : length + i + 1] = True
            positions[row, i] = length + i
    return ids, mask, positions
