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

    The crop rule, in every exercise: a crop that changes nothing (crop(length) with length ==
    cache_length, crop_rows with the row lengths held) and a reset of an empty cache leave the
    model as it was, so the suites neither require nor refuse them (speckata.grading.events).
``model.forward_tree(ids, attention_mask, position_ids)`` and ``model.keep_path(nodes)``
    exercise 20: a token tree in one pass, then one of its paths kept (speckata.models.tree_pass).
    The heads (exercises 21, 22) also read the last hidden state: ``forward_new_hidden(ids)`` and
    ``forward_tree_hidden(ids, attention_mask, position_ids)`` return (hidden (n, width), logits).
``model.reset_rows(batch_size)``, ``model.forward_rows(ids, attention_mask, position_ids)``,
``model.crop_rows(lengths)``, ``model.row_lengths`` and ``model.context``
    exercise 25: a ragged batch of B sequences in a cache of its own, beside the one-sequence
    cache. Each row holds its own length; one pass feeds every row its own number of new tokens,
    padded to a rectangle, with the attention mask and position ids the caller builds (and the
    model checks: it refuses a padded slot that is attended or a position that counts padding,
    naming the row and the token); each row is cropped on its own. The full contract, and the
    one well-formed mask, are in speckata.models.ragged; the GPT's batched cache is in
    speckata.models.ragged_gpt, and tests/maintainer/test_ragged_batch.py checks every row
    against that row fed alone.

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

from typing import Sequence, Union

import torch

from speckata.checks.decoding import check_crop, check_new_ids  # noqa: F401  (the models import them from here)

TokenIds = Union[Sequence[int], torch.Tensor]
