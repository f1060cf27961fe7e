"""Medusa's heads (exercise 21): their parameters, the committed trained ones, and the input checks.

Medusa (Cai et al., 2024; FasterDecoding/Medusa, medusa/model/medusa_model.py) leaves the target
untouched and puts K small heads on its last hidden state h (after the final norm, what the
target's own head reads). Head k is one residual block and a vocabulary projection:

    logits_k = projection_k(h + SiLU(block_k(h)))        block_k: Linear(width, width) with a bias

``MedusaHeads`` holds those parameters and nothing else: computing the logits is exercise 21's
``medusa_logits``. ``MedusaHeads.from_target(target, K)`` starts every head as a copy of the
target's head (each block all zeros, so SiLU(0) = 0 and the residual passes h through; each
projection the target's head weight), as Medusa-1 does; ``load_medusa_heads()`` loads the heads
trained by ``python -m trainers.train_medusa`` on the committed target.

>>> from speckata.models.pretrained import load_target
>>> heads = MedusaHeads.from_target(load_target(), 3)
>>> heads.num_heads, heads.width, heads.vocab_size
(3, 128, 96)
>>> MedusaHeads(128, 96, 0)
Traceback (most recent call last):
ValueError: num_heads must be an integer >= 1 (the number of Medusa heads); got 0
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import torch
import torch.nn as nn

from speckata.checks.decoding import check_count, check_prompt
from speckata.models.pretrained import on_target
from speckata.models.recording import RecordingModel, passed_through, tree_call

WEIGHTS = Path(__file__).parents[1] / "models" / "weights"  # the committed weights stay beside the models
IGNORE_INDEX = -100  # the label of a position a head has nothing to learn from (torch's cross_entropy default)


def check_head_count(num_heads) -> int:
    if isinstance(num_heads, bool) or not hasattr(num_heads, "__index__") or int(num_heads) < 1:
        raise ValueError(f"num_heads must be an integer >= 1 (the number of Medusa heads); got {num_heads!r}")
    return int(num_heads)


class MedusaHeads(nn.Module):
    """K Medusa heads for a target of hidden width ``width`` and ``vocab_size`` tokens.

    ``blocks[k]``: nn.Linear(width, width), the residual block's W and b; ``projections[k]``:
    nn.Linear(width, vocab_size, bias=False), its vocabulary projection.
    """

    def __init__(self, width: int, vocab_size: int, num_heads: int):
        super().__init__()
        num_heads = check_head_count(num_heads)
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(num_heads))
        self.projections = nn.ModuleList(nn.Linear(width, vocab_size, bias=False) for _ in range(num_heads))

    @property
    def num_heads(self) -> int:
        return len(self.blocks)

    @property
    def width(self) -> int:
        return self.blocks[0].in_features

    @property
    def vocab_size(self) -> int:
        return self.projections[0].out_features

    @classmethod
    def from_target(cls, target, num_heads: int) -> "MedusaHeads":
        """Heads that start as the target's own head: zero blocks, projections copied from ``target.head``."""
        check_hidden_interface(target)
        heads = cls(target.width, target.vocab_size, num_heads)
        with torch.no_grad():
            for block, projection in zip(heads.blocks, heads.projections):
                block.weight.zero_()
                block.bias.zero_()
                projection.weight.copy_(target.head.weight)
        return heads.to(target.head.weight.dtype)


def check_hidden_interface(target) -> None:
    """A target the heads can draft for: a GPT-like model with its last hidden state."""
    missing = [name for name in ("forward_new_hidden", "crop", "reset", "vocab_size", "width", "cache_length")
               if not hasattr(target, name)]
    if missing:
        raise ValueError(f"the target must offer forward_new_hidden(ids) -> (hidden, logits), crop, reset, "
                         f"vocab_size, width and cache_length (a speckata.models.gpt.GPT does); "
                         f"{type(target).__name__} lacks {', '.join(missing)}")


def check_hidden(heads, hidden) -> torch.Tensor:
    """The hidden states a head reads: a floating tensor (..., width) of the heads' width."""
    if not isinstance(heads, MedusaHeads):
        raise ValueError(f"heads must be a speckata.heads.medusa.MedusaHeads; got {type(heads).__name__}")
    if not isinstance(hidden, torch.Tensor) or not hidden.is_floating_point() or hidden.ndim < 1:
        raise ValueError(f"hidden must be a floating-point tensor of shape (..., width); got {hidden!r:.80}")
    if hidden.shape[-1] != heads.width:
        raise ValueError(f"hidden states of width {hidden.shape[-1]} do not fit heads of width {heads.width}")
    return hidden


def check_heads_fit(target, heads) -> None:
    """Heads that read this target's hidden state: MedusaHeads of its width and vocabulary."""
    check_hidden_interface(target)
    if not isinstance(heads, MedusaHeads):
        raise ValueError(f"heads must be a speckata.heads.medusa.MedusaHeads; got {type(heads).__name__}")
    if heads.width != target.width:
        raise ValueError(f"heads of width {heads.width} do not fit a target whose hidden width is {target.width}")
    if heads.vocab_size != target.vocab_size:
        raise ValueError(f"the heads' vocabulary ({heads.vocab_size}) differs from the target's ({target.vocab_size})")


def check_medusa_inputs(target, heads, prompt_ids, max_new_tokens) -> list[int]:
    """Every check of exercise 21's decoder; returns the prompt as a list of ints."""
    check_heads_fit(target, heads)
    prompt = check_prompt(prompt_ids, target.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    return prompt


@lru_cache(maxsize=None)
def medusa_settings(on: str = "shipped") -> dict:
    """What produced the committed heads (weights/medusa.json; trained on the deep twin, on="deep":
    weights/medusa_deep.json): settings, losses, seconds, versions."""
    return json.loads((WEIGHTS / on_target("medusa", on, ".json")).read_text())


def load_medusa_heads(dtype: torch.dtype = torch.float32, on: str = "shipped") -> MedusaHeads:
    """The committed heads, trained on the committed target (``python -m trainers.train_medusa``), or on
    its 24-layer twin with ``on="deep"`` (``python -m trainers.train_medusa --on deep``)."""
    settings = medusa_settings(on)
    heads = MedusaHeads(settings["width"], settings["vocab_size"], settings["num_heads"])
    state = torch.load(WEIGHTS / on_target("medusa_heads", on, ".pt"), map_location="cpu", weights_only=True)
    heads.load_state_dict({key: value.to(dtype) for key, value in state.items()})
    return heads.to(dtype).eval()


class RecordingHiddenModel(RecordingModel):
    """A RecordingModel that also records ``forward_new_hidden`` as ``('hidden', ids, cache_length_before)``."""

    width = passed_through("width")

    def forward_new_hidden(self, ids) -> tuple[torch.Tensor, torch.Tensor]:
        listed = tuple(int(i) for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids))
        self._record(("hidden", listed, self.model.cache_length))
        return self.model.forward_new_hidden(ids)

    def forward_tree_hidden(self, ids, attention_mask, position_ids) -> tuple[torch.Tensor, torch.Tensor]:
        """Recorded as forward_tree is (``('tree', ...)``): the pass is the same, only more of it is returned."""
        self._record(tree_call(ids, attention_mask, position_ids, self.model.cache_length))
        return self.model.forward_tree_hidden(ids, attention_mask, position_ids)
