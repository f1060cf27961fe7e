"""Load the committed trained models and tokenizers (``speckata/models/weights/``); never trains.

>>> target, draft = load_target(), load_draft()
>>> target.vocab_size == draft.vocab_size == char_tokenizer().vocab_size
True
>>> target.num_parameters() > 10 * draft.num_parameters()
True
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import torch

from speckata.models.gpt import GPT, GPTConfig
from speckata.models.tokenizers import CharTokenizer, WordTokenizer

WEIGHTS = Path(__file__).with_name("weights")


def _committed_json(name: str, what_ships: str, trainer: str) -> dict:
    """weights/``name``, which ships with the package; if missing, say which trainer writes it."""
    path = WEIGHTS / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: {what_ships} with the package (python -m {trainer})")
    return json.loads(path.read_text())


@lru_cache(maxsize=1)
def settings() -> dict:
    """What produced the weights: model settings, losses, seconds, versions (weights/settings.json)."""
    return _committed_json("settings.json", "the trained weights ship", "trainers.train_models")


@lru_cache(maxsize=None)
def _state(name: str) -> dict:
    return torch.load(WEIGHTS / f"{name}.pt", map_location="cpu", weights_only=True)


def _built(config: dict, weights: str, dtype: torch.dtype) -> GPT:
    """A GPT of ``config`` holding the committed weights/``weights``.pt in ``dtype``, in eval mode."""
    model = GPT(GPTConfig(**config))
    model.load_state_dict({key: value.to(dtype) for key, value in _state(weights).items()})
    return model.to(dtype).eval()


def load(name: str, dtype: torch.dtype = torch.float32) -> GPT:
    """A fresh model (empty cache) with the committed weights of ``name``, in eval mode."""
    return _built(settings()["models"][name]["config"], name, dtype)


def load_target(dtype: torch.dtype = torch.float32) -> GPT:
    return load("target", dtype)


def load_draft(dtype: torch.dtype = torch.float32) -> GPT:
    return load("draft", dtype)


def load_deep_target(dtype: torch.dtype = torch.float32) -> GPT:
    """The shipped target's recipe at 24 layers instead of 6 (``python -m trainers.train_models --only
    deep_target``): EAGLE's setting, where one layer of a head is a small part of a target pass
    (exercise 28's page; ``python -m speckata.bench heads --model deep``)."""
    return load("deep_target", dtype)


# The targets the heads are trained on: the shipped one, and its deep twin. Each head's committed
# weights and record carry the twin's suffix (medusa_heads_deep.pt, eagle_deep.json, ...).
HEAD_TARGETS = {"shipped": load_target, "deep": load_deep_target}


def check_head_target(on: str) -> str:
    if on not in HEAD_TARGETS:
        raise ValueError(f"on must name one of the targets the heads are trained on, {sorted(HEAD_TARGETS)}; got {on!r}")
    return on


def on_target(stem: str, on: str, extension: str) -> str:
    """The committed file of ``stem`` trained on target ``on``: medusa_heads.pt, medusa_heads_deep.pt, ..."""
    return stem + ("" if check_head_target(on) == "shipped" else f"_{on}") + extension


def load_layerskip_target(dtype: torch.dtype = torch.float32) -> GPT:
    """The shipped target's twin trained with LayerSkip's recipe so that its early exits draft well
    (exercise 23; ``python -m trainers.train_layerskip``; settings and figures: ``layerskip_settings()``)."""
    return _built(layerskip_settings()["config"], "layerskip_target", dtype)


@lru_cache(maxsize=1)
def layerskip_settings() -> dict:
    """What trained the LayerSkip target, and what was measured on it (weights/layerskip.json)."""
    return _committed_json("layerskip.json", "the LayerSkip target ships", "trainers.train_layerskip")


def load_word_draft(dtype: torch.dtype = torch.float32) -> GPT:
    return load("word_draft", dtype)


def char_tokenizer() -> CharTokenizer:
    return CharTokenizer()


@lru_cache(maxsize=1)
def word_tokenizer() -> WordTokenizer:
    vocabulary = json.loads((WEIGHTS / "word_tokenizer.json").read_text())["vocabulary"]
    tokenizer = WordTokenizer(vocabulary[len(WordTokenizer.SPECIALS) + len(CharTokenizer().alphabet) :])
    if tokenizer.vocabulary != vocabulary:
        raise ValueError("weights/word_tokenizer.json does not rebuild the same vocabulary")
    return tokenizer


def text_windows(split: str, window: int, limit: int | None = None) -> torch.Tensor:
    """Consecutive, non-overlapping windows of ``window`` characters of the training or held-out
    text (``speckata.models.corpus``), as target token ids: an int64 tensor (N, window)."""
    from speckata.models import corpus

    if split not in ("train", "held_out"):
        raise ValueError(f"split must be 'train' or 'held_out'; got {split!r}")
    text = corpus.training_text() if split == "train" else corpus.held_out_text()
    count = len(text) // window if limit is None else min(limit, len(text) // window)
    # One token per character: only the characters the windows hold are encoded.
    ids = torch.tensor(char_tokenizer().encode(text[: count * window]), dtype=torch.int64)
    return ids.view(count, window)
