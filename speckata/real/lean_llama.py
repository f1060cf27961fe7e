"""``LeanLlama``: SmolLM2's forward pass without transformers' per-call machinery, for decoding.

The same float32 weights and the same operations as transformers' ``LlamaForCausalLM`` (RMSNorm,
rotary embeddings, grouped-query attention through ``scaled_dot_product_attention``, SwiGLU), in
one plain loop over the layers, behind the interface of ``speckata.models.interface``. What it
leaves out is what a one-token pass pays for and does not need (measured with cProfile against
``HFCachedModel``, see ``python -m speckata.real.profile_pass``):

- the cache: transformers' ``DynamicCache`` concatenates every layer's keys and values onto a new
  tensor at every pass (``torch.cat``, O(length) copies); here each layer writes into a buffer
  allocated once, and ``crop`` only moves the length back;
- the modules: ~420 ``nn.Module`` calls per pass (hooks, keyword plumbing, deprecation
  wrappers), the causal-mask builder and the rotary embedding recomputed at every pass; here the
  cos/sin table is computed once and a mask is built only for a pass of several tokens;
- the output layer runs on the rows asked for (``last``) only.

Exactness is checked, not assumed: tests/maintainer/test_real_model.py checks that its logits equal
transformers' within float32 rounding (the same operations in the same order; on some CPUs they are
equal bit for bit, on others the kernels a shape selects sum in another order), that it picks the
same greedy and sampled tokens at every position but a near-tie, and that its greedy tokens equal
``generate(do_sample=False)``'s.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from speckata.models.interface import check_new_ids
from speckata.models.tree_pass import PendingTree, check_tree_feed


class LeanLlama:
    def __init__(self, model, capacity: int = 1024):
        config = model.config
        self.heads, self.kv_heads = config.num_attention_heads, config.num_key_value_heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.heads
        self.eps = config.rms_norm_eps
        self.embed = model.model.embed_tokens.weight.detach()
        self.output = model.get_output_embeddings().weight.detach()
        self.final_norm = model.model.norm.weight.detach()
        self.layers = [self._layer(layer) for layer in model.model.layers]
        self.inv_freq = model.model.rotary_emb.inv_freq.detach().float()
        self.rope_scaling = float(getattr(model.model.rotary_emb, "attention_scaling", 1.0))
        self.vocab_size = int(self.output.shape[0])
        self.model = model
        self._capacity = 0
        self._grow(capacity)
        self._length = 0
        self._tree = PendingTree()  # a token tree fed by forward_tree, waiting for keep_path
        self.passes = 0  # forward passes so far (the benchmark counts them)

    @staticmethod
    def _layer(layer) -> dict:
        attention, mlp = layer.self_attn, layer.mlp
        # q, k and v in one matrix, gate and up in another: one matrix product each instead of three
        # and two. Each output element is the same dot product as before (the CPU's kernel may block
        # a wider matrix differently: the logits test allows float32 rounding).
        qkv = torch.cat([attention.q_proj.weight, attention.k_proj.weight, attention.v_proj.weight]).detach()
        gate_up = torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight]).detach()
        return {"ln1": layer.input_layernorm.weight.detach(), "qkv": qkv, "o": attention.o_proj.weight.detach(),
                "ln2": layer.post_attention_layernorm.weight.detach(), "gate_up": gate_up,
                "down": mlp.down_proj.weight.detach(), "split": mlp.gate_proj.weight.shape[0]}

    def _grow(self, capacity: int) -> None:
        """Key/value buffers and the cos/sin table for ``capacity`` positions (kept contents)."""
        old = getattr(self, "keys", None)
        shape = (len(self.layers), 1, self.kv_heads, capacity, self.head_dim)
        keys, values = torch.zeros(shape), torch.zeros(shape)
        if old is not None:
            keys[:, :, :, : self._capacity] = self.keys
            values[:, :, :, : self._capacity] = self.values
        self.keys, self.values, self._capacity = keys, values, capacity
        # As transformers' LlamaRotaryEmbedding computes them, once for every position.
        freqs = torch.arange(capacity)[:, None].float() * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos, self.sin = emb.cos() * self.rope_scaling, emb.sin() * self.rope_scaling

    @property
    def cache_length(self) -> int:
        return self._length

    def reset(self) -> None:
        self.crop(0)

    def crop(self, length: int) -> None:
        self._length = self._tree.cropped(length, self._length)

    def _norm(self, x, weight):
        return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))

    @staticmethod
    def _rotate(x, cos, sin):
        half = x.shape[-1] // 2
        return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin

    @torch.inference_mode()
    def forward_new(self, ids, last: int | None = None) -> torch.Tensor:
        """Logits (n, V) after each new token (with ``last``: only the last ``last`` rows)."""
        ids = check_new_ids(ids, self.vocab_size)
        self._tree.refuse_forward_new()
        start, n = self._length, ids.shape[0]
        end = start + n
        if end > self._capacity:
            self._grow(max(end, 2 * self._capacity))
        mask = None
        if n > 1 and start > 0:  # token i sees the cache and the new tokens up to itself (at 0: is_causal)
            mask = torch.ones(n, end, dtype=torch.bool).tril(diagonal=start)
        return self._layers(ids, self.cos[start:end], self.sin[start:end], mask, last)

    @torch.inference_mode()
    def forward_tree(self, ids, attention_mask, position_ids, last: int | None = None) -> torch.Tensor:
        """Logits (n, V) for n tree tokens in one pass (``speckata.models.tree_pass``): token i sees the
        cached and new tokens its mask row allows (exercise 18's mask) and is rotated to position
        ``position_ids[i]`` (cache length + depth, not its row), while its keys and values go to cache
        row cache_length + i. Then ``keep_path`` keeps one path (and forward_new refuses until then)."""
        start = self._length
        ids, mask, positions = check_tree_feed(ids, attention_mask, position_ids, start, self.vocab_size)
        end = start + ids.shape[0]
        if max(end, int(positions.max()) + 1) > self._capacity:
            self._grow(max(end, int(positions.max()) + 1, 2 * self._capacity))
        self._tree.grow(start)
        return self._layers(ids, self.cos[positions], self.sin[positions], mask, last)

    @torch.inference_mode()
    def keep_path(self, nodes) -> None:
        """Keep the cache before the pending tree, then tree ``nodes``' keys and values, moved into place."""
        start, nodes = self._tree.kept(nodes, self._length)
        if nodes:
            slots = torch.tensor([start + node for node in nodes])
            for cache in (self.keys, self.values):  # indexing with a tensor copies first: no clobbering
                cache[:, :, :, start : start + len(nodes)] = cache[:, :, :, slots]
        self._length = start + len(nodes)

    def _layers(self, ids, cos, sin, mask, last):
        """Every layer over new tokens ``ids`` written to cache rows from the cache length on, rotated
        by ``cos``/``sin`` (one row per token), seeing what ``mask`` allows (None: causal)."""
        start, n = self._length, ids.shape[0]
        end = start + n
        self.passes += 1
        cos, sin = cos[None, None], sin[None, None]
        h = self.embed[ids][None]  # (1, n, hidden)
        d, heads, kv = self.head_dim, self.heads, self.kv_heads
        for index, w in enumerate(self.layers):
            x = self._norm(h, w["ln1"])
            qkv = F.linear(x, w["qkv"])
            q = qkv[..., : heads * d].view(1, n, heads, d).transpose(1, 2)
            k = qkv[..., heads * d : (heads + kv) * d].view(1, n, kv, d).transpose(1, 2)
            v = qkv[..., (heads + kv) * d :].view(1, n, kv, d).transpose(1, 2)
            q, k = self._rotate(q, cos, sin), self._rotate(k, cos, sin)
            keys, values = self.keys[index], self.values[index]
            keys[:, :, start:end] = k
            values[:, :, start:end] = v
            # The same call, with the same arguments, as transformers' sdpa path.
            attended = F.scaled_dot_product_attention(q, keys[:, :, :end], values[:, :, :end], attn_mask=mask,
                                                      is_causal=mask is None and n > 1, enable_gqa=True)
            attended = attended.reshape(1, heads, n, d).transpose(1, 2).reshape(1, n, heads * d)
            h = h + F.linear(attended, w["o"])
            x = self._norm(h, w["ln2"])
            gate_up = F.linear(x, w["gate_up"])
            h = h + F.linear(F.silu(gate_up[..., : w["split"]]) * gate_up[..., w["split"] :], w["down"])
        self._length = end
        rows = n if last is None else max(1, min(int(last), n))
        h = self._norm(h[0, n - rows :], self.final_norm)
        return F.linear(h, self.output)
