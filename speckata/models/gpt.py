"""A small GPT-style language model with a KV cache that can be cropped back (rolled back).

Read top to bottom: the settings, one transformer block, the model. Two ways to run it:

- ``model(ids)`` with ids of shape (B, T): logits (B, T, V) for every position, no cache. Training
  and distillation use this.
- ``model.forward_new(ids)`` with a 1-D list of new token ids for ONE sequence: logits (n, V), the
  next-token logits after each new token, computed against the keys and values cached from
  earlier calls. ``model.crop(length)`` forgets everything after the first ``length`` tokens,
  ``model.reset()`` forgets everything. This is the interface in ``speckata.models.interface``.
- ``model.forward_tree(ids, attention_mask, position_ids)`` feeds a token tree in one pass and
  ``model.keep_path(nodes)`` keeps one root-to-node path of it (exercise 20, speckata.models.tree_pass).
- ``model.hidden_states(ids)`` and ``model.forward_new_hidden(ids)`` are the two above with the
  last hidden state too (after the final norm, what ``model.head`` reads): Medusa's heads
  (exercise 21, speckata.heads.medusa) draft from it.
- Layer by layer (exercise 23's early exit, speckata.models.early_exit): ``model.embed_new(ids)``
  is the input of layer 0 for new tokens, ``model.forward_layers(hidden, start_layer, end_layer)``
  runs layers start_layer .. end_layer - 1 over them against those layers' caches, and
  ``model.exit_logits(hidden)`` reads any layer's output through the final norm and head. Each
  layer keeps its own cached length (``model.layer_cache_lengths``); ``crop`` cuts every layer,
  ``crop_layers`` a range of them. ``model.layer_computations`` counts what the cached passes did:
  one per token per layer run.
- Many sequences at once (exercise 25): ``reset_rows``, ``forward_rows``, ``crop_rows`` and
  ``row_lengths``, a ragged batch whose rows hold different lengths (speckata.models.ragged).

The cache is preallocated (layers, heads, context, head width), so cropping is only moving a
length back: the rolled-back keys and values stay in memory and are overwritten by the next call.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from operator import attrgetter

import torch
import torch.nn as nn
import torch.nn.functional as F

from speckata.models.interface import check_crop, check_new_ids
from speckata.models.ragged import RaggedBatchModel
from speckata.models.ragged_gpt import GPTRows
from speckata.models.tree_pass import PendingTree, check_tree_feed


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int
    context: int  # the most tokens one sequence may hold (positions are learned up to here)
    width: int  # embedding width
    layers: int
    heads: int

    def as_dict(self) -> dict:
        return asdict(self)


class Block(nn.Module):
    """Pre-norm attention and MLP, each added back to the residual stream."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.heads = config.heads
        self.norm1 = nn.LayerNorm(config.width)
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.proj = nn.Linear(config.width, config.width)
        self.norm2 = nn.LayerNorm(config.width)
        self.mlp = nn.Sequential(nn.Linear(config.width, 4 * config.width), nn.GELU(), nn.Linear(4 * config.width, config.width))

    def split_heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        *lead, T, C = x.shape  # x: (..., T, C) -> three (..., heads, T, C / heads)
        q, k, v = self.qkv(x).split(C, dim=-1)
        return tuple(t.view(*lead, T, self.heads, C // self.heads).transpose(-3, -2) for t in (q, k, v))

    def merge_heads(self, y: torch.Tensor) -> torch.Tensor:
        y = y.transpose(-3, -2)
        return y.reshape(*y.shape[:-2], -1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.split_heads(self.norm1(x))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(self.merge_heads(y))
        return x + self.mlp(self.norm2(x))

    def forward_cached(self, x, keys, values, start: int, allowed) -> torch.Tensor:
        """x: (n, C), the new positions start..start+n-1; keys, values: this layer's cache
        (heads, context, C/heads); allowed: which cached or new positions each new one sees."""
        n = x.shape[0]
        q, k, v = self.split_heads(self.norm1(x))
        keys[:, start : start + n] = k
        values[:, start : start + n] = v
        y = F.scaled_dot_product_attention(q, keys[:, : start + n], values[:, : start + n], attn_mask=allowed)
        x = x + self.proj(self.merge_heads(y))
        return x + self.mlp(self.norm2(x))


class GPT(nn.Module, RaggedBatchModel):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.width)
        self.position_embedding = nn.Embedding(config.context, config.width)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.norm = nn.LayerNorm(config.width)
        self.head = nn.Linear(config.width, config.vocab_size, bias=False)
        self._layer_lengths = [0] * config.layers  # how many tokens each layer's cache holds
        self.layer_computations = 0  # tokens times layers run by the cached passes, since the model was built
        self._cache: tuple[torch.Tensor, torch.Tensor] | None = None  # keys, values: (layers, heads, context, C/heads)
        self._tree = PendingTree()  # a token tree fed by forward_tree (exercise 20), until keep_path
        self._rows = GPTRows()  # the ragged batch (exercise 25): B rows, each its own length

    # The settings, read through the model: decoders and heads ask the model, not its config.
    vocab_size = property(attrgetter("config.vocab_size"))
    context = property(attrgetter("config.context"))
    width = property(attrgetter("config.width"),
                     doc="The width of the hidden state (what ``hidden_states`` and ``forward_new_hidden`` return).")
    num_layers = property(attrgetter("config.layers"))

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    # Training: every position of a batch of sequences, no cache ---------------------------------

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.hidden_states(ids))

    def hidden_states(self, ids: torch.Tensor) -> torch.Tensor:
        """The last hidden state (B, T, width), after the final norm: ``forward`` is ``head`` of it."""
        T = ids.shape[-1]
        if T > self.config.context:
            raise ValueError(f"a sequence of {T} tokens is longer than the model's context of {self.config.context}")
        x = self.token_embedding(ids) + self.position_embedding(torch.arange(T, device=ids.device))
        for block in self.blocks:
            x = block(x)
        return self.norm(x)

    # Generation: one sequence, new tokens against the cache -----------------------------------

    @property
    def cache_length(self) -> int:
        """How many tokens of the current sequence the cache holds (in every layer)."""
        return min(self._layer_lengths)

    @property
    def layer_cache_lengths(self) -> tuple[int, ...]:
        """How many tokens each layer's cache holds: all the same, except while forward_layers runs ahead."""
        return tuple(self._layer_lengths)

    def reset(self) -> None:
        self.crop(0)

    def crop(self, length: int) -> None:
        """Roll back: keep the first ``length`` cached tokens and forget the rest, in every layer."""
        length = self._tree.cropped(length, max(self._layer_lengths))
        self._layer_lengths = [min(held, length) for held in self._layer_lengths]

    def crop_layers(self, length: int, start_layer: int, end_layer: int) -> None:
        """Roll back layers start_layer .. end_layer - 1 only, to at most ``length`` tokens each."""
        start_layer, end_layer = self._check_layer_range(start_layer, end_layer)
        length = check_crop(length, max(self._layer_lengths[start_layer:end_layer]))
        for layer in range(start_layer, end_layer):
            self._layer_lengths[layer] = min(self._layer_lengths[layer], length)

    @torch.no_grad()
    def forward_new(self, ids) -> torch.Tensor:
        """Logits (n, V) after each of the n new tokens, given everything cached before them."""
        return self.forward_new_hidden(ids)[1]

    @torch.no_grad()
    def forward_new_hidden(self, ids) -> tuple[torch.Tensor, torch.Tensor]:
        """``forward_new`` with the last hidden state: (hidden (n, width), logits (n, V)), logits = head(hidden)."""
        ids = check_new_ids(ids, self.config.vocab_size)
        self._tree.refuse_forward_new()
        start, n = self._same_length(0, self.config.layers), ids.shape[0]
        if start + n > self.config.context:
            raise ValueError(
                f"the sequence would hold {start + n} tokens, more than the model's context of {self.config.context}"
            )
        keys, values = self._cache_tensors()
        # New position i sees the cache and the new positions up to itself (one new token: all).
        allowed = None if n == 1 else torch.ones(n, start + n, dtype=torch.bool).tril(diagonal=start)
        x = self.token_embedding(ids) + self.position_embedding.weight[start : start + n]
        for layer, block in enumerate(self.blocks):
            x = block.forward_cached(x, keys[layer], values[layer], start, allowed)
        self._grow(0, self.config.layers, n)
        hidden = self.norm(x)
        return hidden, self.head(hidden)

    def forward_tree(self, ids, attention_mask, position_ids) -> torch.Tensor:
        """Logits (n, V) for n tree tokens in one pass (speckata.models.tree_pass): token i sees the
        cached and new tokens its mask row allows, at position position_ids[i]."""
        return self.forward_tree_hidden(ids, attention_mask, position_ids)[1]

    @torch.no_grad()
    def forward_tree_hidden(self, ids, attention_mask, position_ids) -> tuple[torch.Tensor, torch.Tensor]:
        """``forward_tree`` with the last hidden state: (hidden (n, width), logits (n, V)), the heads' input."""
        start = self._same_length(0, self.config.layers)
        ids, mask, positions = check_tree_feed(ids, attention_mask, position_ids, start, self.config.vocab_size)
        n = ids.shape[0]
        if start + n > self.config.context or int(positions.max()) >= self.config.context:
            raise ValueError(f"the tree does not fit the model's context of {self.config.context} "
                             f"({start} cached + {n} tree tokens, positions up to {int(positions.max())})")
        keys, values = self._cache_tensors()
        self._tree.grow(start)
        x = self.token_embedding(ids) + self.position_embedding.weight[positions]
        for layer, block in enumerate(self.blocks):
            x = block.forward_cached(x, keys[layer], values[layer], start, mask)
        self._grow(0, self.config.layers, n)
        hidden = self.norm(x)
        return hidden, self.head(hidden)

    def keep_path(self, nodes) -> None:
        """Keep the cache before the pending tree, then the keys and values of tree ``nodes``, moved into place."""
        start, nodes = self._tree.kept(nodes, self._same_length(0, self.config.layers))
        if nodes:
            keys, values = self._cache_tensors()
            slots = torch.tensor([start + node for node in nodes], device=keys.device)
            for cache in (keys, values):  # indexing with a tensor copies first, so the move cannot clobber itself
                cache[:, :, start : start + len(nodes)] = cache[:, :, slots]
        self._layer_lengths = [start + len(nodes)] * self.config.layers

    # Layer by layer: early exit (exercise 23) -----------------------------------------------------

    @torch.no_grad()
    def embed_new(self, ids) -> torch.Tensor:
        """Layer 0's input (n, width) for n new tokens: token plus position embeddings, at the
        positions after what layer 0 has cached. Runs no layer and caches nothing."""
        ids = check_new_ids(ids, self.config.vocab_size)
        start, n = self._layer_lengths[0], ids.shape[0]
        self._check_room(start + n)
        return self.token_embedding(ids) + self.position_embedding.weight[start : start + n]

    @torch.no_grad()
    def forward_layers(self, hidden: torch.Tensor, start_layer: int, end_layer: int) -> torch.Tensor:
        """Layers start_layer .. end_layer - 1 over n new positions: ``hidden`` (n, width) is their
        input to start_layer (``embed_new`` for layer 0, an earlier forward_layers' output after
        it); returns their output (n, width) after end_layer - 1, before the final norm. Those
        layers' caches must hold the same length; each grows by n."""
        start_layer, end_layer = self._check_layer_range(start_layer, end_layer)
        self._tree.refuse_forward_new()
        if not isinstance(hidden, torch.Tensor) or not hidden.is_floating_point() or hidden.ndim != 2 \
                or hidden.shape[0] < 1 or hidden.shape[1] != self.config.width:
            raise ValueError(f"forward_layers needs hidden states of shape (n, {self.config.width}) with n >= 1; "
                             f"got {hidden!r:.80}")
        start, n = self._same_length(start_layer, end_layer), hidden.shape[0]
        self._check_room(start + n)
        keys, values = self._cache_tensors()
        allowed = None if n == 1 else torch.ones(n, start + n, dtype=torch.bool).tril(diagonal=start)
        x = hidden.to(keys.dtype)
        for layer in range(start_layer, end_layer):
            x = self.blocks[layer].forward_cached(x, keys[layer], values[layer], start, allowed)
        self._grow(start_layer, end_layer, n)
        return x

    @torch.no_grad()
    def exit_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Logits (..., V) read from any layer's output through the final norm and the head."""
        return self.head(self.norm(hidden))

    def _check_layer_range(self, start_layer, end_layer) -> tuple[int, int]:
        layers = self.config.layers
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in (start_layer, end_layer)) \
                or not 0 <= start_layer < end_layer <= layers:
            raise ValueError(f"the layers run are start_layer .. end_layer - 1 with 0 <= start_layer < end_layer "
                             f"<= {layers} (the model's layers); got start_layer={start_layer!r}, end_layer={end_layer!r}")
        return start_layer, end_layer

    def _same_length(self, start_layer: int, end_layer: int) -> int:
        """The cached length of layers start_layer .. end_layer - 1, which must agree."""
        lengths = self._layer_lengths[start_layer:end_layer]
        if len(set(lengths)) != 1:
            raise ValueError(f"layers {start_layer}..{end_layer - 1} hold different lengths {lengths}: feed the layers "
                             f"that are behind (forward_layers) or crop the ones ahead first")
        return lengths[0]

    def _check_room(self, length: int) -> None:
        if length > self.config.context:
            raise ValueError(f"the sequence would hold {length} tokens, more than the model's context of {self.config.context}")

    def _grow(self, start_layer: int, end_layer: int, n: int) -> None:
        for layer in range(start_layer, end_layer):
            self._layer_lengths[layer] += n
        self.layer_computations += n * (end_layer - start_layer)

    def _cache_tensors(self) -> tuple[torch.Tensor, torch.Tensor]:
        c = self.config
        weight = self.head.weight
        shape = (c.layers, c.heads, c.context, c.width // c.heads)
        if self._cache is None or self._cache[0].dtype != weight.dtype or self._cache[0].device != weight.device:
            self._cache = tuple(torch.zeros(shape, dtype=weight.dtype, device=weight.device) for _ in range(2))
        return self._cache
