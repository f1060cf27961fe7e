"""The given models of exercises 10-12 (speckata.models): the ground the end-to-end exercises stand on.

Not graded exercises: these guard the KV cache and its rollback, the toy chains' exact
distributions, the draws of the torch helpers, the tokenizers and the committed weights.
"""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest
import torch

from speckata import ReplayRNG, sample
from speckata.bench.generate import expected_tokens_per_pass, speedup_bound
from speckata.decoding.sampling import GeneratorRNG, draw_uniform, next_token_probabilities, sample_token
from speckata.models.gpt import GPT, GPTConfig
from speckata.models.markov import MarkovModel, random_markov_model
from speckata.models.pretrained import (
    char_tokenizer,
    load_deep_target,
    load_draft,
    load_target,
    load_word_draft,
    settings,
    word_tokenizer,
)
from speckata.models.recording import RecordingModel
from speckata.models.tokenizers import CharTokenizer, WordTokenizer

MODULES = ["interface", "markov", "sampling", "decoding", "tokenizers", "recording", "pretrained", "checks", "early_exit"]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"speckata.models.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def small_gpt(seed=0, context=32):
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return GPT(GPTConfig(vocab_size=11, context=context, width=16, layers=2, heads=2)).eval()


class TestKVCache:
    def test_cached_passes_match_the_full_forward(self):
        model = small_gpt()
        ids = torch.randint(0, 11, (20,), generator=torch.Generator().manual_seed(1))
        full = model(ids[None])[0]
        chunks = [model.forward_new(ids[a:b]) for a, b in ((0, 7), (7, 8), (8, 13), (13, 20))]
        assert model.cache_length == 20
        assert torch.allclose(torch.cat(chunks), full, atol=1e-5)

    def test_crop_rolls_back_as_if_the_tail_was_never_fed(self):
        model = small_gpt()
        ids = [1, 2, 3, 4, 5, 6]
        model.forward_new(ids)
        model.forward_new([9, 9, 9])  # rejected drafts
        model.crop(6)
        after_rollback = model.forward_new([7, 8])
        model.reset()
        fresh = model.forward_new(ids + [7, 8])[-2:]
        assert torch.allclose(after_rollback, fresh, atol=1e-5)

    @pytest.mark.parametrize("bad, phrase", [([], "at least one"), ([11], "out of range"), ([-1], "out of range"),
                                             ([0.5], "integer"), (torch.zeros((2, 2), dtype=torch.int64), "1-D")])
    def test_forward_new_rejects_bad_ids(self, bad, phrase):
        with pytest.raises(ValueError, match=phrase):
            small_gpt().forward_new(bad)

    def test_crop_only_rolls_back(self):
        model = small_gpt()
        model.forward_new([1, 2])
        with pytest.raises(ValueError, match="only rolls back"):
            model.crop(3)

    def test_the_context_is_a_hard_limit(self):
        model = small_gpt(context=8)
        model.forward_new(list(range(8)))
        with pytest.raises(ValueError, match="context"):
            model.forward_new([1])


class TestLayerRanges:
    """Exercise 23's layer-range passes: the same numbers as forward_new, per-layer lengths, a counter."""

    def test_two_ranges_are_one_forward_new_bit_for_bit(self):
        model, whole = small_gpt(context=64), small_gpt(context=64)
        ids = torch.randint(0, 11, (9,), generator=torch.Generator().manual_seed(3)).tolist()
        for chunk in (ids[:5], ids[5:6], ids[6:]):
            hidden = model.forward_layers(model.forward_layers(model.embed_new(chunk), 0, 1), 1, 2)
            assert torch.equal(model.exit_logits(hidden), whole.forward_new(chunk))
        assert model.layer_cache_lengths == (9, 9) and model.cache_length == 9
        assert model.layer_computations == whole.layer_computations == 18

    def test_layers_run_ahead_and_crop_together(self):
        model = small_gpt(context=64)
        model.forward_layers(model.embed_new([1, 2, 3]), 0, 2)
        model.forward_layers(model.embed_new([4, 5]), 0, 1)  # layer 0 ahead by two tokens
        assert model.layer_cache_lengths == (5, 3) and model.cache_length == 3
        with pytest.raises(ValueError, match="different lengths"):
            model.forward_new([6])
        model.crop_layers(4, 0, 1)
        assert model.layer_cache_lengths == (4, 3)
        model.crop(3)
        assert model.layer_cache_lengths == (3, 3) and model.layer_computations == 3 * 2 + 2

    def test_bad_ranges_and_states_are_refused(self):
        model = small_gpt()
        for start, end in ((0, 0), (1, 3), (-1, 1), (True, 2)):
            with pytest.raises(ValueError, match="start_layer"):
                model.forward_layers(torch.zeros(1, 16), start, end)
        with pytest.raises(ValueError, match="shape"):
            model.forward_layers(torch.zeros(1, 8), 0, 1)
        with pytest.raises(ValueError, match="context"):
            model.embed_new([0] * 33)


class TestMarkov:
    def test_rows_depend_on_the_last_k_tokens_padded_with_zero(self):
        chain = random_markov_model(3, 2, seed=4)
        assert torch.equal(chain.next_distribution([2]), chain.transitions[0, 2])
        assert torch.equal(chain.next_distribution([1, 0, 2]), chain.transitions[0, 2])

    def test_forward_new_returns_log_probabilities_and_crop_forgets(self):
        chain = random_markov_model(4, 1, seed=5)
        logits = chain.forward_new([1, 3])
        assert torch.allclose(logits.exp(), chain.transitions[[1, 3]])
        chain.crop(1)
        assert chain.history == [1]

    def test_sequence_probabilities_sum_to_one(self):
        chain = random_markov_model(3, 2, seed=6)
        total = sum(chain.sequence_probability([1], s) for s in chain.all_continuations(3))
        assert abs(total - 1) < 1e-12

    def test_bad_tables_are_refused(self):
        with pytest.raises(ValueError, match="sum to 1"):
            MarkovModel([[0.5, 0.4], [0.5, 0.5]])


class TestSampling:
    def test_sample_token_matches_the_numpy_sampler_on_the_same_uniforms(self):
        gen = torch.Generator().manual_seed(7)
        for _ in range(200):
            probs = torch.rand(6, generator=gen, dtype=torch.float64) * (torch.rand(6, generator=gen) > 0.3)
            if probs.sum() == 0:
                continue
            state = gen.get_state()
            token = sample_token(probs, gen)
            replay = torch.Generator()
            replay.set_state(state)
            assert token == sample(probs.numpy(), GeneratorRNG(replay))

    def test_one_uniform_per_sample(self):
        a, b = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
        sample_token(torch.tensor([0.2, 0.8], dtype=torch.float64), a)
        draw_uniform(b)
        assert torch.equal(a.get_state(), b.get_state())

    def test_never_a_zero_probability_token(self):
        assert sample(np.array([0.3, 0.7, 0.0]), ReplayRNG([0.9999999999999999])) == 1
        probs = torch.tensor([0.3, 0.7, 0.0], dtype=torch.float64)
        assert all(sample_token(probs, torch.Generator().manual_seed(s)) in (0, 1) for s in range(50))

    @pytest.mark.parametrize("temperature", [-1.0, float("nan"), float("inf"), "hot"])
    def test_bad_temperatures(self, temperature):
        with pytest.raises(ValueError, match="temperature"):
            next_token_probabilities(torch.zeros(3), temperature)

    def test_temperature_zero_is_one_hot_on_the_first_maximum(self):
        probs = next_token_probabilities(torch.tensor([[1.0, 2.0, 2.0], [5.0, 0.0, 0.0]]), 0)
        assert probs.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


class TestTokenizersAndWeights:
    def test_character_round_trip_and_a_clear_error(self):
        chars = CharTokenizer()
        text = "def f(x):\n    return x ** 2  # ~!"
        assert chars.decode(chars.encode(text)) == text
        with pytest.raises(ValueError, match="vocabulary"):
            chars.encode("caf\u00e9")

    def test_word_pieces_join_back_to_the_text(self):
        words = word_tokenizer()
        text = "Assignment statements (re)bind names:  x = 1\n"
        assert "".join(words.pieces(text)) == text
        assert words.decode(words.encode(text)) == text
        assert words.encode("\u00e9", add_bos=False) == [WordTokenizer.UNK]

    def test_committed_weights_match_their_settings(self):
        record = settings()["models"]
        for name, load in (("target", load_target), ("draft", load_draft), ("word_draft", load_word_draft),
                           ("deep_target", load_deep_target)):
            model = load()
            assert model.num_parameters() == record[name]["parameters"]
            assert model.vocab_size == (char_tokenizer() if name != "word_draft" else word_tokenizer()).vocab_size

    def test_recording_model_logs_calls(self):
        model = RecordingModel(random_markov_model(3, 1, seed=0))
        model.forward_new([0, 1])
        model.crop(1)
        model.reset()
        assert model.calls == [("forward", (0, 1), 0), ("crop", 1, 2), ("reset", 1)]


def test_benchmark_formulas():
    assert abs(expected_tokens_per_pass(0.7, 4) - (1 - 0.7**5) / 0.3) < 1e-12
    assert expected_tokens_per_pass(1.0, 4) == 5.0
    assert abs(speedup_bound(0.7, 4, 0.1) - expected_tokens_per_pass(0.7, 4) / 1.4) < 1e-12
