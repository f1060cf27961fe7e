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


class RecordingModel:
    """Delegates to ``model`` and appends one entry per call to ``calls``:

    ``('forward', ids, cache_length_before)``, ``('crop', length, cache_length_before)``,
    ``('reset', cache_length_before)``, ``('tree', ids, mask rows as 0/1 tuples, positions,
    cache_length_before)`` and ``('keep_path', nodes, cache_length_before)`` (exercise 20's tree
    pass, speckata.models.tree_pass); and to ``stamps`` the call's place on a clock shared by all
    recorders. A tree pass is ONE forward pass, however many nodes it feeds.
    """

    def __init__(self, model):
        self.model = model
        self.calls: list[tuple] = []
        self.stamps: list[int] = []

    def _record(self, call: tuple) -> None:
        self.calls.append(call)
        self.stamps.append(next(_CLOCK))

    @property
    def vocab_size(self) -> int:
        return self.model.vocab_size

    @property
    def cache_length(self) -> int:
        return self.model.cache_length

    def forward_new(self, ids) -> torch.Tensor:
        listed = tuple(int(i) for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids))
        self._record(("forward", listed, self.model.cache_length))
        return self.model.forward_new(ids)

    def forward_tree(self, ids, attention_mask, position_ids) -> torch.Tensor:
        listed = tuple(int(i) for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids))
        mask = tuple(tuple(int(bool(v)) for v in row) for row in torch.as_tensor(attention_mask).tolist())
        positions = tuple(int(i) for i in torch.as_tensor(position_ids).reshape(-1).tolist())
        self._record(("tree", listed, mask, positions, self.model.cache_length))
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
