"""The ragged batch of the model interface (exercise 25, speckata/models/ragged.py) against plain decoding.

Every row's logits from ONE forward_rows call equal feeding that row's sequence alone with
forward_new (to 1e-5), on the shipped GPT and on a Markov toy, across rounds of ragged feeds and
per-row crops; a malformed mask or position is refused with a ValueError naming the row and
token; the recorder logs each call. The feeds come from the reference's independent builder
(tests/reference/ex25_feeds.py), not from solutions/.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from speckata.models.markov import random_markov_model
from speckata.models.recording import RecordingModel
from tests.maintainer.interface_models import models
from tests.reference.ex25_feeds import PAD, ragged_feed

pytestmark = pytest.mark.usefixtures("one_torch_thread")
TOLERANCE = 1e-5


def fed_alone(model, sequence) -> torch.Tensor:
    model.reset()
    return model.forward_new(sequence)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("which", range(2))
def test_every_row_equals_its_sequence_fed_alone_across_ragged_rounds_and_crops(which, seed):
    name, model = models()[which]
    gen = np.random.default_rng(200 + seed)
    batch = 4
    sequences: list[list[int]] = [[] for _ in range(batch)]
    model.reset_rows(batch)
    for round_ in range(4):
        counts = [int(c) for c in gen.integers(0 if round_ else 1, 6, batch)]
        counts[int(gen.integers(batch))] = max(counts[0], 1)  # at least one real token
        new = [[int(t) for t in gen.integers(0, model.vocab_size, c)] for c in counts]
        lengths = list(model.row_lengths)
        logits = model.forward_rows(*ragged_feed(lengths, new))
        for row in range(batch):
            sequences[row] += new[row]
            if not new[row]:
                continue
            alone = fed_alone(model, sequences[row])[-len(new[row]):]
            difference = float((logits[row, : len(new[row])] - alone).abs().max())
            assert difference <= TOLERANCE, f"{name}: round {round_}, row {row} differs by {difference:.2e}"
            assert not logits[row, len(new[row]):].any(), f"{name}: padding must read zeros"
        kept = [int(gen.integers(0, len(s) + 1)) for s in sequences]
        model.crop_rows(kept)
        sequences = [s[:k] for s, k in zip(sequences, kept)]
        assert model.row_lengths == tuple(kept)


MALFORMED = {
    "padded slot attended": (lambda mask, positions: mask.__setitem__((0, 0, 3), True), "attention_mask row 0, token 0"),
    "own token unseen": (lambda mask, positions: mask.__setitem__((1, 1, 1), False), "attention_mask row 1, token 1"),
    "padding attends": (lambda mask, positions: mask.__setitem__((0, 1, 0), True), "attention_mask row 0, token 1"),
    "positions count padding": (lambda mask, positions: positions.__setitem__((1, 0), 2), "position_ids row 1, token 0"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
@pytest.mark.parametrize("which", range(2))
def test_a_malformed_mask_or_position_is_refused_naming_the_row_and_token(which, name):
    _, model = models()[which]
    model.reset_rows(2)
    model.forward_rows(*ragged_feed([0, 0], [[1, 2], [3]]))
    ids, mask, positions = ragged_feed([2, 1], [[4], [5, 1]])  # width 4: row 0's slot 3 is past its token
    spoil, phrase = MALFORMED[name]
    spoil(mask, positions)
    with pytest.raises(ValueError, match=phrase):
        model.forward_rows(ids, mask, positions)
    assert model.row_lengths == (2, 1), "a refused call must leave the rows as they were"


@pytest.mark.parametrize("which", range(2))
def test_bad_feeds_and_crops_are_refused(which):
    _, model = models()[which]
    model.reset_rows(2)
    with pytest.raises(ValueError, match="out of range"):
        model.forward_rows(*ragged_feed([0, 0], [[model.vocab_size], [0]]))
    with pytest.raises(ValueError, match="follows padding"):
        model.forward_rows(torch.tensor([[PAD, 1], [0, 0]]), *ragged_feed([0, 0], [[0, 0], [0, 0]])[1:])
    with pytest.raises(ValueError, match="at least one real token"):
        model.forward_rows(torch.full((2, 1), PAD), torch.zeros(2, 1, 1, dtype=torch.bool), torch.zeros(2, 1, dtype=torch.int64))
    with pytest.raises(ValueError, match="cannot crop row 1"):
        model.crop_rows([0, 1])
    with pytest.raises(ValueError, match="one length per row"):
        model.crop_rows([0])
    with pytest.raises(ValueError, match="batch_size"):
        model.reset_rows(0)


def test_a_row_past_the_context_is_refused():
    model = random_markov_model(3, 1, 0)
    model.context = 3
    model.reset_rows(1)
    with pytest.raises(ValueError, match="context of 3"):
        model.forward_rows(*ragged_feed([0], [[0, 1, 2, 0]]))


def test_the_recorder_logs_every_rows_call():
    model = RecordingModel(random_markov_model(3, 1, 0))
    model.reset_rows(2)
    ids, mask, positions = ragged_feed([0, 0], [[1, 2], [0]])
    model.forward_rows(ids, mask, positions)
    model.crop_rows([1, 1])
    assert model.calls == [
        ("reset_rows", 2, ()),
        ("rows", ((1, 2), (0, PAD)), (0, 0), (((1, 0), (1, 1)), ((1, 0), (0, 0))), ((0, 1), (0, 0))),
        ("crop_rows", (1, 1), (2, 1)),
    ]
    assert model.rows_passes == 1 and model.row_lengths == (1, 1)


def test_the_whole_feed_check_agrees_with_the_walk_over_every_row_and_token():
    """check_rows_feed accepts a well-formed feed by comparing it whole with the one expected mask and
    positions, and walks row by row only to name a departure. On random ragged feeds: the expected
    tensors equal the reference's builder's, and every single spoiled mask bit or position is still
    refused, naming its row and token."""
    from speckata.models.ragged import check_rows_feed, expected_mask_and_positions

    generator = np.random.default_rng(20261203)
    for _ in range(20):
        batch = int(generator.integers(1, 4))
        lengths = [int(v) for v in generator.integers(0, 5, batch)]
        tokens = [[1] * int(c) for c in generator.integers(0, 4, batch)]
        tokens[int(generator.integers(batch))] = [1] * int(generator.integers(1, 4))  # one real token at least
        ids, mask, positions = ragged_feed(lengths, tokens)
        counts = [len(row) for row in tokens]
        expected = expected_mask_and_positions(lengths, counts, *mask.shape[1:])
        assert torch.equal(expected[0], mask) and torch.equal(expected[1], positions)
        check_rows_feed(ids, mask, positions, lengths, 8, None)
        for row, i, slot in np.ndindex(*mask.shape):
            spoiled = mask.clone()
            spoiled[row, i, slot] = ~spoiled[row, i, slot]
            with pytest.raises(ValueError, match=f"attention_mask row {row}, token {i}"):
                check_rows_feed(ids, spoiled, positions, lengths, 8, None)
        for row, i in np.ndindex(*positions.shape):
            spoiled = positions.clone()
            spoiled[row, i] += 1
            with pytest.raises(ValueError, match=f"position_ids row {row}, token {i}"):
                check_rows_feed(ids, mask, spoiled, lengths, 8, None)
