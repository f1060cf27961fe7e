"""The ragged batch of the model interface (exercise 25): B sequences in one cache, each row its own length.

A server decodes many sequences at once. Each row of the batch holds its own sequence in its own
cache row, and rows hold different numbers of tokens. Both the GPT (speckata.models.gpt) and the
Markov toy (speckata.models.markov) offer, next to their one-sequence ``forward_new``:

``model.reset_rows(batch_size)``
    forget every row and start ``batch_size`` >= 1 empty rows (the one-sequence cache of
    ``forward_new`` is a separate cache and is left as it is).
``model.row_lengths``
    a tuple: how many tokens each row's cache holds, L_0 .. L_{B-1} (``()`` before reset_rows).
``model.forward_rows(ids, attention_mask, position_ids) -> logits``
    ONE forward pass over every row. ``ids`` is an integer tensor (B, n): row b holds its c_b new
    tokens first, then ``PAD`` (-1) up to n (a row may be all padding: c_b = 0; n >= 1 and at least
    one real token in the batch). Real token i of row b goes to slot L_b + i of row b's cache and
    row b's length grows by c_b. The caller builds the padding, the mask and the positions:

    - ``attention_mask``: bool (B, n, K) with K = max_b L_b + n, over the key slots 0 .. K-1 of
      each row. Real token i of row b sees exactly slots 0 .. L_b + i: its row's L_b cached tokens
      and its own new tokens 0 .. i; never a slot past them (in a shorter row those are padding).
      A padding token's mask row is all False.
    - ``position_ids``: integer (B, n). Real token i of row b sits at position L_b + i, its place
      in its own sequence (padding counts for nothing); a padding token's position is 0.

    The model checks both and refuses anything else with a ValueError naming the row, the token
    and the slot. On a real model a padded slot that is attended, or a position that counts
    padding, gives logits that are silently wrong; here, where exactly one mask and one set of
    positions are right, the model says so at the call that went wrong (theory/25-ragged-batch.md).
    Row b of the logits (B, n, V): at real token i, the logits of the token that follows it in
    row b; at padding, zeros (nothing to read).
``model.crop_rows(lengths)``
    roll each row back on its own: row b keeps its first ``lengths[b]`` tokens (0 <= lengths[b]
    <= L_b; a row given its own length is unchanged).
``model.context``
    the most tokens one row may hold (None: unlimited, the Markov toy's default).

``speckata.models.recording.RecordingModel`` records every one of these calls.

>>> import torch
>>> from speckata.models.markov import MarkovModel
>>> model = MarkovModel([[0.9, 0.1], [0.2, 0.8]])    # order 1: row = previous token
>>> model.reset_rows(2)
>>> ids = torch.tensor([[0, 1], [1, PAD]])          # row 0: two new tokens, row 1: one
>>> mask = torch.tensor([[[1, 0], [1, 1]], [[1, 0], [0, 0]]], dtype=torch.bool)
>>> logits = model.forward_rows(ids, mask, torch.tensor([[0, 1], [0, 0]]))
>>> logits.exp().round(decimals=2).tolist()[1], model.row_lengths   # row 1's padding reads zeros
([[0.2, 0.8], [1.0, 1.0]], (2, 1))
>>> model.crop_rows([1, 1]); model.row_lengths
(1, 1)
"""

from __future__ import annotations

import torch

from speckata.token_ids import is_integer

PAD = -1  # fills each row of ids after its real tokens (exercise 08's PAD)


def _integer_tensor(name: str, value, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    tensor = torch.as_tensor(value)
    if tensor.dtype.is_floating_point or tensor.dtype.is_complex or tensor.dtype == torch.bool \
            or (shape is not None and tuple(tensor.shape) != shape):
        wanted = f" of shape {shape}" if shape is not None else ""
        raise ValueError(f"{name} must be an integer tensor{wanted}; got {tensor.dtype} of shape {tuple(tensor.shape)}")
    return tensor.to(torch.int64)


def real_counts(ids: torch.Tensor, vocab_size: int) -> list[int]:
    """c_b for every row of ids (B, n): its real tokens come first, then PAD; ValueError otherwise."""
    counts = []
    for row, values in enumerate(ids.tolist()):
        count = next((i for i, token in enumerate(values) if token == PAD), len(values))
        for i, token in enumerate(values):
            if i >= count and token != PAD:
                raise ValueError(f"ids row {row}: token {i} = {token} follows padding at token {count}: a row's real "
                                 f"tokens come first, then PAD ({PAD}) up to n")
            if i < count and not 0 <= token < vocab_size:
                raise ValueError(f"ids row {row}, token {i} = {token} is out of range for a vocabulary of {vocab_size} "
                                 f"tokens (padding is {PAD})")
        counts.append(count)
    return counts


def check_rows_feed(ids, attention_mask, position_ids, lengths: list[int], vocab_size: int, context: int | None):
    """forward_rows' inputs as (ids (B, n), counts c_b, bool mask (B, n, K), positions (B, n))."""
    if not lengths:
        raise ValueError("forward_rows: no rows yet: call reset_rows(batch_size) first")
    batch = len(lengths)
    ids = _integer_tensor("forward_rows' ids", ids)
    if ids.dim() != 2 or ids.shape[0] != batch or ids.shape[1] < 1:
        raise ValueError(f"forward_rows' ids must have shape (B, n) with B = {batch} rows (reset_rows) and n >= 1; "
                         f"got shape {tuple(ids.shape)}")
    counts = real_counts(ids, vocab_size)
    if not any(counts):
        raise ValueError("forward_rows needs at least one real token in the batch (every row is padding)")
    n = ids.shape[1]
    for row, (length, count) in enumerate(zip(lengths, counts)):
        if context is not None and length + count > context:
            raise ValueError(f"row {row} would hold {length + count} tokens, more than the model's context of {context}")
    width = max(lengths) + n
    mask = torch.as_tensor(attention_mask)
    if mask.dtype != torch.bool or tuple(mask.shape) != (batch, n, width):
        raise ValueError(f"attention_mask must be a bool tensor of shape (B, n, max(row_lengths) + n) = "
                         f"({batch}, {n}, {width}); got {mask.dtype} of shape {tuple(mask.shape)}")
    positions = _integer_tensor("position_ids", position_ids, (batch, n))
    _check_mask_and_positions(mask, positions, lengths, counts)
    return ids, counts, mask, positions


def expected_mask_and_positions(lengths, counts, n: int, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The one well-formed ragged mask (B, n, width) and positions (B, n) for rows of these lengths and counts."""
    held, real = torch.tensor(lengths).view(-1, 1), torch.tensor(counts).view(-1, 1)
    new = torch.arange(n).view(1, -1)
    is_real = new < real  # (B, n)
    last_seen = held + new  # (B, n): a real token sees slots 0..length + i
    mask = (torch.arange(width).view(1, 1, -1) <= last_seen[..., None]) & is_real[..., None]
    return mask, torch.where(is_real, last_seen, 0)


def _check_mask_and_positions(mask: torch.Tensor, positions: torch.Tensor, lengths, counts) -> None:
    """The one well-formed ragged mask and positions; the first departure is named."""
    n, width = mask.shape[1:]
    wanted_mask, wanted_positions = expected_mask_and_positions(lengths, counts, n, width)
    if torch.equal(mask, wanted_mask) and torch.equal(positions, wanted_positions):
        return  # the usual case, checked whole; otherwise the walk below names the first departure
    slots = torch.arange(width)
    for row, (length, count) in enumerate(zip(lengths, counts)):
        for i in range(n):
            real = i < count
            wanted = slots <= length + i if real else torch.zeros(width, dtype=torch.bool)
            wrong = (mask[row, i] != wanted).nonzero().flatten().tolist()
            if wrong:
                slot = wrong[0]
                what = (f"real token {i} (slot {length + i}) must see slots 0..{length + i}: its row's {length} cached "
                        f"tokens and its new tokens 0..{i}" if real else f"token {i} is padding: its mask row must be all False")
                seen = "sees" if bool(mask[row, i, slot]) else "does not see"
                raise ValueError(f"attention_mask row {row}, token {i}: {what}; it {seen} slot {slot}")
            position = int(positions[row, i])
            expected = length + i if real else 0
            if position != expected:
                where = (f"real token {i} sits at position {length} + {i} = {expected} (row {row}'s cached tokens, then "
                         f"its own new tokens; padding counts for nothing)" if real else f"token {i} is padding: position 0")
                raise ValueError(f"position_ids row {row}, token {i}: {where}; got {position}")


def check_row_lengths(lengths, held: list[int]) -> list[int]:
    """crop_rows' lengths as a list of ints, one per row, each in [0, held[b]]."""
    values = lengths.tolist() if isinstance(lengths, torch.Tensor) else list(lengths)
    if len(values) != len(held):
        raise ValueError(f"crop_rows needs one length per row: {len(held)} rows; got {len(values)} lengths")
    for row, (length, cached) in enumerate(zip(values, held)):
        if not is_integer(length):
            raise ValueError(f"crop_rows needs integer lengths; lengths[{row}] = {length!r}")
        if not 0 <= int(length) <= cached:
            raise ValueError(f"cannot crop row {row} to {int(length)}: it holds {cached} tokens (crop only rolls back)")
    return [int(length) for length in values]


class RaggedRows:
    """The row bookkeeping a model's ragged batch shares: the lengths, reset and crop.

    A model subclass adds ``run(model, ids, counts, mask, positions) -> logits`` and, if it keeps
    more than lengths, ``forget(lengths)``."""

    def __init__(self):
        self.lengths: list[int] = []

    def reset(self, batch_size) -> None:
        if not is_integer(batch_size) or int(batch_size) < 1:
            raise ValueError(f"reset_rows needs a batch_size >= 1 (an int); got {batch_size!r}")
        self.lengths = [0] * int(batch_size)
        self.forget(self.lengths)

    def crop(self, lengths) -> None:
        self.lengths = check_row_lengths(lengths, self.lengths)
        self.forget(self.lengths)

    def forget(self, lengths: list[int]) -> None:
        """Drop what each row holds past lengths[b] (nothing to do where only the lengths are kept)."""

    def feed(self, model, ids, attention_mask, position_ids) -> torch.Tensor:
        ids, counts, mask, positions = check_rows_feed(ids, attention_mask, position_ids, self.lengths,
                                                       model.vocab_size, model.context)
        logits = self.run(model, ids, counts, mask, positions)
        self.lengths = [length + count for length, count in zip(self.lengths, counts)]
        return logits


class RaggedBatchModel:
    """The four methods of the ragged batch, for a model that keeps a RaggedRows in ``_rows``."""

    def reset_rows(self, batch_size) -> None:
        self._rows.reset(batch_size)

    @property
    def row_lengths(self) -> tuple[int, ...]:
        return tuple(self._rows.lengths)

    def forward_rows(self, ids, attention_mask, position_ids) -> torch.Tensor:
        return self._rows.feed(self, ids, attention_mask, position_ids)

    def crop_rows(self, lengths) -> None:
        self._rows.crop(lengths)


class MarkovRows(RaggedRows):
    """A Markov chain's rows: each row's history; a token's logits are the chain's log row after it."""

    def __init__(self):
        super().__init__()
        self.histories: list[list[int]] = []

    def forget(self, lengths: list[int]) -> None:
        if len(self.histories) != len(lengths):
            self.histories = [[] for _ in lengths]
        for history, length in zip(self.histories, lengths):
            del history[length:]

    def run(self, model, ids, counts, mask, positions) -> torch.Tensor:
        logits = torch.zeros(*ids.shape, model.vocab_size, dtype=torch.float64)
        for row, (history, count) in enumerate(zip(self.histories, counts)):
            for i, token in enumerate(ids[row, :count].tolist()):
                history.append(token)
                logits[row, i] = model.log_next_distribution(history)
        return logits
