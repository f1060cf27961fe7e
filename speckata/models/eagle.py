"""EAGLE's draft head (exercise 22): its parameters, the committed trained one, and the input checks.

EAGLE (Li et al., 2024; SafeAILab/EAGLE, eagle/model/cnets.py) drafts with a small head that
reads the frozen target's last hidden state f_t (after the final norm, what the target's own head
reads) together with the embedding of the token one step ahead, x_{t+1}:

    fused   = fc(cat(embedding(x_{t+1}), f_t))          fc: Linear(2 width, width), with a bias
    f_{t+1} ~ layer(fused)                               one causal decoder layer over the sequence

and turns a predicted feature into a next-token distribution with the target's own head (frozen,
shared: the head adds no vocabulary projection of its own). ``EagleHead`` holds ``fc`` and
``layer`` and nothing else: computing the features is exercise 22's ``eagle_features``.

The decoder layer is a pre-norm attention and MLP block, as the target's blocks are, with no
position embedding (the features already carry the position) and narrower inside (attention of
``inner`` channels, an MLP of ``mlp_width``), so that the head's budget is about that of
exercise 21's three Medusa heads. ``load_eagle_head()`` loads the head trained by
``python -m trainers.train_eagle`` on the committed target; ``load_distilled_draft()`` the
committed draft distilled with exercise 11's recipe, the independent draft it is compared with.

>>> head = EagleHead(128)
>>> head.width, sum(p.numel() for p in head.parameters())
(128, 83072)
>>> EagleHead(128, heads=3)
Traceback (most recent call last):
ValueError: inner (64) must be a multiple of heads (3)
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from speckata.models.checks import check_count, check_prompt, check_temperature
from speckata.models.gpt import GPT, GPTConfig
from speckata.models.medusa import RecordingHiddenModel

WEIGHTS = Path(__file__).with_name("weights")


class DecoderLayer(nn.Module):
    """Pre-norm causal self-attention then an MLP, each added back to the stream; x: (..., T, width)."""

    def __init__(self, width: int, heads: int, inner: int, mlp_width: int):
        super().__init__()
        if inner % heads:
            raise ValueError(f"inner ({inner}) must be a multiple of heads ({heads})")
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * inner)
        self.proj = nn.Linear(inner, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, mlp_width), nn.GELU(), nn.Linear(mlp_width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        *lead, T, _ = x.shape
        split = self.qkv(self.norm1(x)).chunk(3, dim=-1)  # each (..., T, inner) -> (..., heads, T, inner / heads)
        q, k, v = (t.reshape(*lead, T, self.heads, -1).transpose(-3, -2) for t in split)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # row t sees rows 0..t only
        x = x + self.proj(y.transpose(-3, -2).reshape(*lead, T, -1))
        return x + self.mlp(self.norm2(x))


class EagleHead(nn.Module):
    """EAGLE's head for a target of hidden width ``width``: ``fc`` (Linear(2 width, width)) and ``layer``."""

    def __init__(self, width: int, heads: int = 2, inner: int = 64, mlp_width: int = 64):
        super().__init__()
        self.fc = nn.Linear(2 * width, width)
        self.layer = DecoderLayer(width, heads, inner, mlp_width)

    @property
    def width(self) -> int:
        return self.fc.out_features


def check_eagle_interface(target) -> None:
    """A target the head can draft for: a GPT-like model with its hidden states, embedding and head."""
    missing = [name for name in ("forward_new_hidden", "crop", "reset", "vocab_size", "width", "cache_length",
                                 "token_embedding", "head") if not hasattr(target, name)]
    if missing:
        raise ValueError(f"the target must offer forward_new_hidden(ids) -> (hidden, logits), crop, reset, vocab_size, "
                         f"width, cache_length, token_embedding and head (a speckata.models.gpt.GPT does); "
                         f"{type(target).__name__} lacks {', '.join(missing)}")


def check_eagle_head(head, target) -> None:
    if not isinstance(head, EagleHead):
        raise ValueError(f"head must be a speckata.models.eagle.EagleHead; got {type(head).__name__}")
    if head.width != target.width:
        raise ValueError(f"a head of width {head.width} does not fit a target whose hidden width is {target.width}")


def check_features(head, target, features, tokens) -> tuple[torch.Tensor, torch.Tensor]:
    """What ``eagle_features`` reads: features (..., T, width) and tokens (..., T) of the target's ids."""
    check_eagle_interface(target)
    check_eagle_head(head, target)
    if not isinstance(features, torch.Tensor) or not features.is_floating_point() or features.ndim < 2:
        raise ValueError(f"features must be a floating-point tensor of shape (..., T, width); got {features!r:.80}")
    if features.shape[-1] != head.width:
        raise ValueError(f"hidden states of width {features.shape[-1]} do not fit a head of width {head.width}")
    if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.int64 \
            or tuple(tokens.shape) != tuple(features.shape[:-1]):
        raise ValueError(f"tokens must be an int64 tensor of shape {tuple(features.shape[:-1])} (features without "
                         f"their last axis); got {tokens!r:.80}")
    if tokens.numel() and (int(tokens.min()) < 0 or int(tokens.max()) >= target.vocab_size):
        raise ValueError(f"tokens must be ids in 0..{target.vocab_size - 1}")
    return features, tokens


def check_eagle_inputs(target, head, prompt_ids, max_new_tokens, gamma, temperature) -> list[int]:
    """Every check of exercise 22's decoder; returns the prompt as a list of ints."""
    check_eagle_interface(target)
    check_eagle_head(head, target)
    prompt = check_prompt(prompt_ids, target.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    return prompt


@lru_cache(maxsize=1)
def eagle_settings() -> dict:
    """What produced the committed head and distilled draft (weights/eagle.json): settings, losses, seconds."""
    return json.loads((WEIGHTS / "eagle.json").read_text())


def load_eagle_head(dtype: torch.dtype = torch.float32) -> EagleHead:
    """The committed head, trained on the committed target (``python -m trainers.train_eagle``)."""
    shape = eagle_settings()["head"]["shape"]
    head = EagleHead(**shape)
    state = torch.load(WEIGHTS / "eagle_head.pt", map_location="cpu", weights_only=True)
    head.load_state_dict({key: value.to(dtype) for key, value in state.items()})
    return head.to(dtype).eval()


def load_distilled_draft(dtype: torch.dtype = torch.float32) -> GPT:
    """The committed draft after exercise 11's distillation (400 steps; ``python -m trainers.train_eagle``)."""
    config = GPTConfig(**eagle_settings()["distilled_draft"]["config"])
    draft = GPT(config)
    state = torch.load(WEIGHTS / "distilled_draft.pt", map_location="cpu", weights_only=True)
    draft.load_state_dict({key: value.to(dtype) for key, value in state.items()})
    return draft.to(dtype).eval()


class RecordingEagleModel(RecordingHiddenModel):
    """A RecordingHiddenModel that also lends the head the target's ``token_embedding`` and ``head``."""

    @property
    def token_embedding(self):
        return self.model.token_embedding

    @property
    def head(self):
        return self.model.head
