"""Batched cached passes for ``python -m speckata.bench cost`` (exercise 26-serving-crossover's table).

A server's decoding pass: B rows, each with L tokens already in its KV cache, each feeding n new
tokens; the pass writes the new keys and values after the L cached ones, attends over all L + n
(each new token sees the cache and the new tokens up to itself) and returns the logits of every
new position (verification reads them all). The models' own caches hold one sequence, so these
classes run the same weights and operations with a batch dimension and a cache of their own:

- ``BatchedGPTPass``: the shipped character-level GPT (speckata.models.gpt), block by block;
- ``BatchedLlamaPass``: SmolLM2 through ``LeanLlama``'s weights (speckata.real.lean_llama).

The cache is filled with random numbers, not by running the model over L tokens: what a pass costs
does not depend on the values it reads, and filling B = 32 rows of 1024 tokens through SmolLM2
would take longer than the whole measurement. Each call overwrites positions L .. L + n - 1 only,
so the cache is the same before every repeat (the "restore" is free).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def causal_mask(context: int, n: int):
    """New token i sees the context and new tokens 0..i; None for one token (it sees everything)."""
    return None if n == 1 else torch.ones(n, context + n, dtype=torch.bool).tril(diagonal=context)


class BatchedGPTPass:
    """One pass of the shipped GPT over (batch, n) new tokens against ``context`` cached tokens per row."""

    def __init__(self, model, batch: int, context: int, max_new: int, seed: int = 0):
        c = model.config
        if context + max_new > c.context:
            raise ValueError(f"context {context} + {max_new} new tokens exceeds the model's context of {c.context}")
        self.model, self.batch, self.context = model, batch, context
        gen = torch.Generator().manual_seed(seed)
        shape = (c.layers, batch, c.heads, context + max_new, c.width // c.heads)
        self.keys, self.values = (torch.randn(shape, generator=gen) for _ in range(2))
        self.ids = torch.randint(c.vocab_size, (batch, max_new), generator=gen)

    @torch.inference_mode()
    def __call__(self, n: int) -> torch.Tensor:
        model, L = self.model, self.context
        x = model.token_embedding(self.ids[:, :n]) + model.position_embedding.weight[L : L + n]
        mask = causal_mask(L, n)
        for layer, block in enumerate(model.blocks):
            q, k, v = block.split_heads(block.norm1(x))  # each (B, heads, n, head width)
            keys, values = self.keys[layer], self.values[layer]
            keys[:, :, L : L + n] = k
            values[:, :, L : L + n] = v
            y = F.scaled_dot_product_attention(q, keys[:, :, : L + n], values[:, :, : L + n], attn_mask=mask)
            x = x + block.proj(block.merge_heads(y))
            x = x + block.mlp(block.norm2(x))
        return model.head(model.norm(x))


class BatchedLlamaPass:
    """One pass of a LeanLlama (SmolLM2 or a draft of its shape) over (batch, n) new tokens per row."""

    def __init__(self, lean, batch: int, context: int, max_new: int, seed: int = 0):
        self.lean, self.batch, self.context = lean, batch, context
        if lean.cos.shape[0] < context + max_new:
            lean._grow(context + max_new)  # the cos/sin table for every position
        gen = torch.Generator().manual_seed(seed)
        shape = (len(lean.layers), batch, lean.kv_heads, context + max_new, lean.head_dim)
        self.keys, self.values = (torch.randn(shape, generator=gen) for _ in range(2))
        self.ids = torch.randint(lean.vocab_size, (batch, max_new), generator=gen)

    @torch.inference_mode()
    def __call__(self, n: int) -> torch.Tensor:
        lean, L, B = self.lean, self.context, self.batch
        end, d, heads, kv = L + n, lean.head_dim, lean.heads, lean.kv_heads
        cos, sin = lean.cos[L:end][None, None], lean.sin[L:end][None, None]
        mask = causal_mask(L, n)
        h = lean.embed[self.ids[:, :n]]  # (B, n, hidden)
        for index, w in enumerate(lean.layers):
            qkv = F.linear(lean._norm(h, w["ln1"]), w["qkv"])
            q = qkv[..., : heads * d].view(B, n, heads, d).transpose(1, 2)
            k = qkv[..., heads * d : (heads + kv) * d].view(B, n, kv, d).transpose(1, 2)
            v = qkv[..., (heads + kv) * d :].view(B, n, kv, d).transpose(1, 2)
            q, k = lean._rotate(q, cos, sin), lean._rotate(k, cos, sin)
            keys, values = self.keys[index], self.values[index]
            keys[:, :, L:end] = k
            values[:, :, L:end] = v
            attended = F.scaled_dot_product_attention(q, keys[:, :, :end], values[:, :, :end], attn_mask=mask,
                                                      enable_gqa=True)
            h = h + F.linear(attended.transpose(1, 2).reshape(B, n, heads * d), w["o"])
            gate_up = F.linear(lean._norm(h, w["ln2"]), w["gate_up"])
            h = h + F.linear(F.silu(gate_up[..., : w["split"]]) * gate_up[..., w["split"] :], w["down"])
        return F.linear(lean._norm(h, lean.final_norm), lean.output)
