"""A wrapper that records every call a decoder makes on a model: how grading counts what each model is fed.

>>> from speckata.models.markov import MarkovModel
>>> model = RecordingModel(MarkovModel([[0.5, 0.5], [0.5, 0.5]]))
>>> _ = model.forward_new([0, 1, 1]); model.crop(1); _ = model.forward_new([0])
>>> model.calls
[('forward', (0, 1, 1), 0), ('crop', 1, 3), ('forward', (0,), 1)]
>>> model.forward_calls, model.tokens_fed, model.cache_length
(2, 4, 2)
"""

from __future__ import annotations

import itertools

import torch

# One clock for every recorder, so that the calls a decoder made on two models can be put back in
# the order it made them (which round a call belongs to depends on the other model's calls).
_CLOCK = itertools.count()


def passed_through(name: str) -> property:
    """A read-only property that answers what the wrapped model's own ``name`` says (not recorded)."""
    return property(lambda self: getattr(self.model, name), doc=f"The wrapped model's ``{name}``.")


class RecordingModel:
    """Delegates to ``model`` and appends one entry per call to ``calls``:

    ``('forward', ids, cache_length_before)``, ``('crop', length, cache_length_before)``,
    ``('reset', cache_length_before)``, ``('tree', ids, mask rows as 0/1 tuples, positions,
    cache_length_before)`` and ``('keep_path', nodes, cache_length_before)`` (exercise 20's tree
    pass, speckata.models.tree_pass); the ragged batch's ``('reset_rows', batch_size,
    row_lengths_before)``, ``('rows', ids rows, row_lengths_before, mask as 0/1 rows, position
    rows)`` and ``('crop_rows', lengths, row_lengths_before)`` (exercise 25,
    speckata.models.ragged), every tensor as nested tuples of ints; and to ``stamps`` the call's
    place on a clock shared by all recorders. A tree pass is ONE forward pass, however many nodes
    it feeds, and so is a rows pass, however many rows.

    Given a ``generator``, it also appends to ``states`` that generator's state before each call:
    how grading counts the random numbers drawn between calls (speckata.grading.events).
    """

    def __init__(self, model, generator: torch.Generator | None = None):
        self.model = model
        self.generator = generator
        self.calls: list[tuple] = []
        self.stamps: list[int] = []
        self.states: list = []

    def _record(self, call: tuple) -> None:
        self.calls.append(call)
        self.stamps.append(next(_CLOCK))
        self.states.append(None if self.generator is None else self.generator.get_state())

    vocab_size = passed_through("vocab_size")
    cache_length = passed_through("cache_length")

    def forward_new(self, ids) -> torch.Tensor:
        listed = tuple(int(i) for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids))
        self._record(("forward", listed, self.model.cache_length))
        return self.model.forward_new(ids)

    def forward_tree(self, ids, attention_mask, position_ids) -> torch.Tensor:
        self._record(tree_call(ids, attention_mask, position_ids, self.model.cache_length))
        return self.model.forward_tree(ids, attention_mask, position_ids)

    def keep_path(self, nodes) -> None:
        listed = tuple(int(i) for i in (nodes.tolist() if isinstance(nodes, torch.Tensor) else nodes))
        self._record(("keep_path", listed, self.model.cache_length))
        self.model.keep_path(nodes)

    def crop(self, length: int) -> None:
        self._record(("crop", length, self.model.cache_length))
        self.model.crop(length)

    def reset(self) -> None:
        self._record(("reset", self.model.cache_length))
        self.model.reset()

    # The ragged batch (exercise 25) ---------------------------------------------------------------

    context = passed_through("context")
    row_lengths = passed_through("row_lengths")

    def reset_rows(self, batch_size) -> None:
        self._record(("reset_rows", batch_size, self.model.row_lengths))
        self.model.reset_rows(batch_size)

    def forward_rows(self, ids, attention_mask, position_ids) -> torch.Tensor:
        self._record(("rows", nested_ints(ids), self.model.row_lengths, nested_ints(attention_mask),
                      nested_ints(position_ids)))
        return self.model.forward_rows(ids, attention_mask, position_ids)

    def crop_rows(self, lengths) -> None:
        self._record(("crop_rows", nested_ints(lengths), self.model.row_lengths))
        self.model.crop_rows(lengths)

    @property
    def rows_passes(self) -> int:
        """How many forward_rows passes (one per call, however many rows)."""
        return sum(1 for call in self.calls if call[0] == "rows")

    @property
    def feeds(self) -> list[tuple[int, ...]]:
        """The ids of every forward pass (forward_new or forward_tree), in order."""
        return [call[1] for call in self.calls if call[0] in ("forward", "tree")]

    @property
    def forward_calls(self) -> int:
        return len(self.feeds)

    @property
    def tokens_fed(self) -> int:
        return sum(len(ids) for ids in self.feeds)


def nested_ints(value):
    """A tensor, list or tuple (of any depth) as nested tuples of ints (bools as 0/1); anything else as it is."""
    if isinstance(value, torch.Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return tuple(nested_ints(item) for item in value)
    return int(value) if hasattr(value, "__index__") else value  # ints, bools, numpy ints; a float stays a float


def tree_call(ids, attention_mask, position_ids, cache_length: int) -> tuple:
    """How a tree pass is recorded: ``('tree', ids, mask rows as 0/1, positions, cache_length_before)``."""
    listed = tuple(int(i) for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids))
    mask = tuple(tuple(int(bool(v)) for v in row) for row in torch.as_tensor(attention_mask).tolist())
    positions = tuple(int(i) for i in torch.as_tensor(position_ids).reshape(-1).tolist())
    return ("tree", listed, mask, positions, cache_length)
