"""The tree pass of the model interface (exercise 20, speckata/models/tree_pass.py) against plain decoding.

Per-node logits of ONE forward_tree call equal those of feeding each root-to-node path on its own
(to 1e-5), on the shipped GPT and on a Markov toy; a tree fed a level per call equals the tree fed
at once; after keep_path the next forward equals a fresh model fed the kept sequence; the
recorder counts a tree pass as one pass. The masks and positions come from exercise 18's
independent reference, not from solutions/.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from speckata.models.markov import random_markov_model
from speckata.models.recording import RecordingModel
from tests.maintainer.interface_models import models
from tests.reference.ex18_reference import reference_mask, reference_positions

pytestmark = pytest.mark.usefixtures("one_torch_thread")
TOLERANCE = 1e-5


def random_tree(seed: int, n: int) -> list[int]:
    gen = np.random.default_rng(seed)
    return [int(gen.integers(-1, node)) for node in range(n)]


def path_to(parents: list[int], node: int) -> list[int]:
    path = []
    while node != -1:
        path.append(node)
        node = parents[node]
    return path[::-1]


def tree_pass(model, prefix, tokens, parents):
    model.reset()
    model.forward_new(prefix)
    mask = torch.tensor(reference_mask(parents, len(prefix)))
    return model.forward_tree(tokens, mask, torch.tensor(reference_positions(parents, len(prefix))))


def fed_alone(model, sequence) -> torch.Tensor:
    model.reset()
    return model.forward_new(sequence)[-1]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("which", range(2))
def test_per_node_logits_equal_each_path_fed_on_its_own(which, seed):
    name, model = models()[which]
    gen = np.random.default_rng(100 + seed)
    prefix = [int(t) for t in gen.integers(0, model.vocab_size, 5 + seed)]
    parents = random_tree(seed, 9)
    tokens = [int(t) for t in gen.integers(0, model.vocab_size, len(parents))]
    logits = tree_pass(model, prefix, tokens, parents)
    for node in range(len(parents)):
        alone = fed_alone(model, prefix + [tokens[j] for j in path_to(parents, node)])
        difference = float((logits[node] - alone).abs().max())
        assert difference <= TOLERANCE, f"{name}: node {node} of tree {parents} differs by {difference:.2e}"


@pytest.mark.parametrize("which", range(2))
def test_a_tree_fed_a_level_per_call_equals_the_tree_fed_at_once(which):
    name, model = models()[which]
    prefix, parents, tokens = [3, 1, 4], [-1, -1, 0, 0, 1, 2, 2], [1, 5, 2, 0, 3, 4, 1]
    at_once = tree_pass(model, prefix, tokens, parents)
    model.reset()
    model.forward_new(prefix)
    rows = []
    for start, end in [(0, 2), (2, 5), (5, 7)]:  # the levels (depth 0, 1, 2)
        full = torch.tensor(reference_mask(parents[:end], len(prefix)))
        positions = torch.tensor(reference_positions(parents[:end], len(prefix))[start:end])
        rows.append(model.forward_tree(tokens[start:end], full[start:end], positions))
    assert float((torch.cat(rows) - at_once).abs().max()) <= TOLERANCE, name


@pytest.mark.parametrize("which", range(2))
def test_after_keep_path_the_next_forward_equals_a_fresh_model_fed_the_kept_sequence(which):
    name, model = models()[which]
    prefix, parents, tokens = [2, 0, 5, 1], [-1, 0, 0, 1, 2, 3, 4], [4, 1, 3, 2, 5, 0, 1]
    for path in ([0, 2, 4, 6], [0, 1], [], [0, 1, 3, 5]):
        tree_pass(model, prefix, tokens, parents)
        model.keep_path(path)
        kept = prefix + [tokens[j] for j in path]
        assert model.cache_length == len(kept)
        after = model.forward_new([1, 2])
        model.reset()
        fresh = model.forward_new(kept + [1, 2])[-2:]
        assert float((after - fresh).abs().max()) <= TOLERANCE, f"{name}: kept path {path}"


def test_the_recorder_counts_a_tree_pass_as_one_pass():
    model = RecordingModel(random_markov_model(4, 1, 0))
    model.forward_new([0, 1])
    model.forward_tree([1, 2, 3], torch.tensor(reference_mask([-1, -1, 0], 2)), torch.tensor([2, 2, 3]))
    model.keep_path([0, 2])
    assert (model.forward_calls, model.tokens_fed, model.cache_length) == (2, 5, 4)
    assert model.calls[1][0] == "tree" and model.calls[1][3] == (2, 2, 3)
    assert model.calls[2] == ("keep_path", (0, 2), 5)


@pytest.mark.parametrize("which", range(2))
def test_misuse_is_refused_with_a_clear_value_error(which):
    _, model = models()[which]
    tree_pass(model, [1, 2], [0, 1], [-1, 0])
    with pytest.raises(ValueError, match="keep_path"):
        model.forward_new([1])
    with pytest.raises(ValueError, match="inside a pending token tree"):
        model.crop(3)
    with pytest.raises(ValueError, match="increasing"):
        model.keep_path([1, 0])
    with pytest.raises(ValueError, match="out of range"):
        model.keep_path([0, 2])
    model.keep_path([0])
    with pytest.raises(ValueError, match="see itself"):
        model.forward_tree([0], torch.tensor([[True, True, True, False]]), torch.tensor([3]))
    with pytest.raises(ValueError, match="shape"):
        model.forward_tree([0], torch.ones(1, 3, dtype=torch.bool), torch.tensor([3]))
    model.crop(2)  # back to the tree's start: allowed
    assert model.cache_length == 2
