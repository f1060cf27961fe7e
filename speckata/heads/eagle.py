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

from speckata.checks.decoding import check_prompt_and_counts
from speckata.heads.eagle_cache import HeadCache, check_fused, check_head_mask
from speckata.heads.medusa import RecordingHiddenModel
from speckata.models.gpt import GPT, GPTConfig
from speckata.models.pretrained import on_target
from speckata.models.recording import passed_through

WEIGHTS = Path(__file__).parents[1] / "models" / "weights"  # the committed weights stay beside the models


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

    def split_heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        *lead, T, _ = x.shape
        split = self.qkv(self.norm1(x)).chunk(3, dim=-1)  # each (..., T, inner) -> (..., heads, T, inner / heads)
        return tuple(t.reshape(*lead, T, self.heads, -1).transpose(-3, -2) for t in split)

    def finish(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """The attention's output y (..., heads, T, inner / heads) projected and added, then the MLP."""
        x = x + self.proj(y.transpose(-3, -2).reshape(*x.shape[:-1], -1))
        return x + self.mlp(self.norm2(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.split_heads(x)
        return self.finish(x, F.scaled_dot_product_attention(q, k, v, is_causal=True))  # row t sees rows 0..t only

    def forward_cached(self, x: torch.Tensor, cache) -> torch.Tensor:
        """x (n, width): n new rows after the ``cache``'s (a HeadCache); their keys and values join it."""
        q, k, v = self.split_heads(x)  # (heads, n, inner / heads)
        start, n = cache.length, x.shape[0]
        keys, values = cache.extend(k, v)  # (heads, start + n, inner / heads)
        # New row i sees the cached rows and the new rows up to itself (one new row: all).
        allowed = None if n == 1 else torch.ones(n, start + n, dtype=torch.bool).tril(diagonal=start)
        return self.finish(x, F.scaled_dot_product_attention(q, keys, values, attn_mask=allowed))

    def forward_masked(self, x: torch.Tensor, cache, allowed: torch.Tensor) -> torch.Tensor:
        """``forward_cached`` with the rows each new row sees given: allowed (n, cached + n) bool."""
        q, k, v = self.split_heads(x)
        keys, values = cache.extend(k, v)
        return self.finish(x, F.scaled_dot_product_attention(q, keys, values, attn_mask=allowed))


class EagleHead(nn.Module):
    """EAGLE's head for a target of hidden width ``width``: ``fc`` (Linear(2 width, width)) and ``layer``."""

    def __init__(self, width: int, heads: int = 2, inner: int = 64, mlp_width: int = 64):
        super().__init__()
        self.fc = nn.Linear(2 * width, width)
        self.layer = DecoderLayer(width, heads, inner, mlp_width)
        self.cache = HeadCache()  # the layer's keys and values of the rows fed by forward_new (exercise 28)

    @property
    def width(self) -> int:
        return self.fc.out_features

    # The head's own cache (exercise 28, speckata.heads.eagle_cache) ------------------------------

    @property
    def cache_length(self) -> int:
        """How many rows the head's cache holds."""
        return self.cache.length

    def crop(self, length: int) -> None:
        """Roll back: keep the first ``length`` cached rows and forget the rest."""
        self.cache.crop(length)

    def reset(self) -> None:
        self.cache.crop(0)

    @torch.no_grad()
    def forward_new(self, fused: torch.Tensor) -> torch.Tensor:
        """The decoder layer over n new rows of ``fc``'s output (n, width), given the rows cached
        before them: returns their predicted features (n, width); the cache grows by n."""
        return self.layer.forward_cached(check_fused(fused, self.width), self.cache)

    @torch.no_grad()
    def forward_tree(self, fused: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Exercise 30's tree rows: n new rows of fc's output (n, width), row i attending to the rows
        its mask row allows, mask (n, cache_length + n) bool (exercise 18's mask, with the cache as
        the prefix); returns their features (n, width); the cache grows by n (crop drops them)."""
        fused = check_fused(fused, self.width)
        return self.layer.forward_masked(fused, self.cache, check_head_mask(mask, fused.shape[0], self.cache_length))


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
        raise ValueError(f"head must be a speckata.heads.eagle.EagleHead; got {type(head).__name__}")
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
    return check_prompt_and_counts(prompt_ids, target.vocab_size, max_new_tokens, gamma, temperature)


@lru_cache(maxsize=None)
def eagle_settings(on: str = "shipped") -> dict:
    """What produced the committed head and distilled draft (weights/eagle.json; trained on the deep
    twin, on="deep": weights/eagle_deep.json): settings, losses, seconds."""
    return json.loads((WEIGHTS / on_target("eagle", on, ".json")).read_text())


def load_eagle_head(dtype: torch.dtype = torch.float32, on: str = "shipped") -> EagleHead:
    """The committed head, trained on the committed target (``python -m trainers.train_eagle``), or on
    its 24-layer twin with ``on="deep"`` (``python -m trainers.train_eagle --on deep``)."""
    shape = eagle_settings(on)["head"]["shape"]
    head = EagleHead(**shape)
    state = torch.load(WEIGHTS / on_target("eagle_head", on, ".pt"), map_location="cpu", weights_only=True)
    head.load_state_dict({key: value.to(dtype) for key, value in state.items()})
    return head.to(dtype).eval()


def load_distilled_draft(dtype: torch.dtype = torch.float32, on: str = "shipped") -> GPT:
    """The committed draft after exercise 11's distillation (400 steps; ``python -m trainers.train_eagle``)
    towards the committed target, or towards its 24-layer twin with ``on="deep"``."""
    config = GPTConfig(**eagle_settings(on)["distilled_draft"]["config"])
    draft = GPT(config)
    state = torch.load(WEIGHTS / on_target("distilled_draft", on, ".pt"), map_location="cpu", weights_only=True)
    draft.load_state_dict({key: value.to(dtype) for key, value in state.items()})
    return draft.to(dtype).eval()


class RecordingEagleModel(RecordingHiddenModel):
    """A RecordingHiddenModel that also lends the head the target's ``token_embedding`` and ``head``."""

    token_embedding = passed_through("token_embedding")
    head = passed_through("head")


class CountedLayer(nn.Module):
    """A decoder layer that reports the rows each uncached call computes to ``record``."""

    def __init__(self, layer: DecoderLayer, record):
        super().__init__()
        self.inner, self.record = layer, record

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.record(("layer", x[..., 0].numel(), x.shape[-2]))  # rows computed, rows per sequence
        return self.inner(x)

    def forward_cached(self, x: torch.Tensor, cache) -> torch.Tensor:
        return self.inner.forward_cached(x, cache)

    def forward_masked(self, x: torch.Tensor, cache, allowed: torch.Tensor) -> torch.Tensor:
        return self.inner.forward_masked(x, cache, allowed)


class RecordingEagleHead(EagleHead):
    """The same head (its fc, layer and cache shared) that records the work a decoder makes it do:

    ``('new', n, cache_length_before)`` per forward_new (n rows computed against the cache),
    ``('tree', n, cache_length_before)`` per forward_tree (exercise 30: n tree rows, one call),
    ``('crop', length, cache_length_before)``, ``('reset', cache_length_before)``, and
    ``('layer', rows, T)`` per uncached ``head.layer`` call (all its rows recomputed).
    ``rows_computed`` sums the rows of both kinds.
    """

    def __init__(self, head: EagleHead):
        nn.Module.__init__(self)
        self.calls: list[tuple] = []
        self.fc, self.cache = head.fc, head.cache
        self.layer = CountedLayer(head.layer, self.calls.append)

    @property
    def rows_computed(self) -> int:
        return sum(call[1] for call in self.calls if call[0] in ("new", "tree", "layer"))

    def forward_new(self, fused: torch.Tensor) -> torch.Tensor:
        self.calls.append(("new", int(fused.shape[0]) if isinstance(fused, torch.Tensor) and fused.ndim else 0,
                           self.cache_length))
        return super().forward_new(fused)

    def forward_tree(self, fused: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        self.calls.append(("tree", int(fused.shape[0]) if isinstance(fused, torch.Tensor) and fused.ndim else 0,
                           self.cache_length))
        return super().forward_tree(fused, mask)

    def crop(self, length: int) -> None:
        self.calls.append(("crop", length, self.cache_length))
        super().crop(length)

    def reset(self) -> None:
        self.calls.append(("reset", self.cache_length))
        self.cache.crop(0)
