"""The interface every model in exercises 10-12 offers: new tokens in, next-token logits out.

A model holds ONE sequence in its cache. It offers:

``model.vocab_size``
    the number of token ids, 0 .. vocab_size - 1.
``model.forward_new(ids) -> logits``
    feed n >= 1 new token ids (a list of ints or a 1-D integer tensor) that continue the cached
    sequence; returns a float tensor of shape (n, vocab_size) whose row i holds the logits of the
    token that follows ids[i]. Afterwards the cache holds n more tokens. Feeding n tokens in one
    call is ONE forward pass, however large n is: that is what speculative decoding exploits.
``model.cache_length``
    how many tokens the cache holds.
``model.crop(length)``
    roll back: keep the first ``length`` cached tokens, forget the rest (0 <= length <=
    cache_length). Cropping costs nothing; the next forward_new continues from there.
``model.reset()``
    forget everything (the same as crop(0)).

The real models (``speckata.models.gpt.GPT``) and the toy Markov models
(``speckata.models.markov.MarkovModel``) both follow it; ``speckata.models.recording`` wraps
either and records every call, which is how the grading suites count the tokens each model is fed.

>>> from speckata.models.markov import MarkovModel
>>> model = MarkovModel([[0.9, 0.1], [0.2, 0.8]])   # order 1: row = previous token
>>> model.forward_new([0, 1]).exp().round(decimals=2).tolist(), model.cache_length
([[0.9, 0.1], [0.2, 0.8]], 2)
>>> model.crop(1); model.cache_length
1
"""

from __future__ import annotations

from typing import Protocol, Sequence, Union

import torch

TokenIds = Union[Sequence[int], torch.Tensor]


class CachedLanguageModel(Protocol):
    vocab_size: int

    def forward_new(self, ids: TokenIds) -> torch.Tensor: ...

    @property
    def cache_length(self) -> int: ...

    def crop(self, length: int) -> None: ...

    def reset(self) -> None: ...


def check_new_ids(ids: TokenIds, vocab_size: int) -> torch.Tensor:
    """The new ids as a 1-D int64 tensor; ValueError naming the problem otherwise."""
    if isinstance(ids, torch.Tensor):
        if ids.dtype.is_floating_point or ids.dtype == torch.bool or ids.dim() > 1:
            raise ValueError(f"forward_new takes the new ids of one sequence, a 1-D list of integers; "
                             f"got a tensor of {ids.dtype} and shape {tuple(ids.shape)}")
        ids = ids.reshape(-1).tolist()
    values = list(ids)
    if any(isinstance(v, bool) or not hasattr(v, "__index__") for v in values):
        raise ValueError(f"forward_new needs integer token ids; got {values!r}")
    if not values:
        raise ValueError("forward_new needs at least one new token id (got none)")
    values = [int(v) for v in values]
    bad = [v for v in values if not 0 <= v < vocab_size]
    if bad:
        raise ValueError(f"token id {bad[0]} is out of range for a vocabulary of {vocab_size}")
    return torch.tensor(values, dtype=torch.int64)


def check_crop(length: int, cache_length: int) -> int:
    """The length to crop to; ValueError if it is not an int in [0, cache_length]."""
    if isinstance(length, bool) or not hasattr(length, "__index__"):
        raise ValueError(f"crop needs an integer length; got {length!r}")
    length = int(length)
    if not 0 <= length <= cache_length:
        raise ValueError(f"cannot crop to {length}: the cache holds {cache_length} tokens (crop only rolls back)")
    return length
