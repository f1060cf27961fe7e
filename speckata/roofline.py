"""A MODELLED pass-cost table c(B, n, L) for a datacenter GPU (exercise 26-serving-crossover), not a measurement.

The roofline model of one decoding pass over B rows, n new tokens per row, L cached tokens per row:

    memory  = (weight bytes + B · (L + n) · KV bytes per token) / bandwidth     (weights read once per
                                                                                 pass, each row's cache too)
    compute = B · n · (2 · parameters + 4 · layers · width · (L + n)) / peak FLOP/s
                                                                                (matrix products, plus
                                                                                 attention's QK^T and AV)
    pass    = max(memory, compute)                                   (the default: a lower bound)

That max is optimistic: it lets the weights' arithmetic hide behind the caches' reads, as if one
kernel did both. A pass runs the weight matrix products and attention as separate kernels, each
bound by its own slower side (MagicDec's per-operation model, Chen et al., arXiv 2408.11049):

    pass    = max(weight bytes / bandwidth, B · n · 2 · parameters / peak)
            + max(B · (L + n) · KV bytes per token / bandwidth, B · n · 4 · layers · width · (L + n) / peak)

``per_operation=True`` selects it. Nothing else is modelled (kernel launches, the sampler,
communication).

The numbers, with their sources:
- GPU: NVIDIA H100 SXM, 989 TFLOP/s dense BF16 (the datasheet's 1,979 is with 2:4 sparsity) and
  3.35 TB/s HBM3 bandwidth (NVIDIA H100 Tensor Core GPU datasheet).
- target: Llama-3-8B (Meta's model card and config.json): 8.03e9 parameters, 32 layers, width
  4096, 8 key/value heads of 128 dimensions, bf16 (2 bytes): KV bytes per token
  2 (K and V) · 32 · 8 · 128 · 2 = 131,072.
- draft: Llama-3.2-1B (its model card and config.json): 1.24e9 parameters, 16 layers, width 2048,
  8 key/value heads of 64 dimensions: 2 · 16 · 8 · 64 · 2 = 32,768 KV bytes per token. With
  ``draft_window``, the draft keeps only its last window tokens of cache, as MagicDec's drafts with
  a StreamingLLM-style sparse cache do, so its cost stops growing with L.

>>> import numpy as np
>>> c = modelled_target_cost([1, 64], 4, [1024])
>>> c.shape
(2, 4, 1)
>>> [round(float(x) * 1e3, 3) for x in c[0, :, 0]]        # B = 1: weights dominate; n barely matters (ms)
[4.834, 4.834, 4.834, 4.834]
>>> [round(float(x) * 1e3, 3) for x in c[1, :, 0]]        # B = 64: the caches are read once per pass
[7.361, 7.363, 7.366, 7.368]
"""

from __future__ import annotations

import numpy as np

H100_SXM = {"name": "NVIDIA H100 SXM (datasheet: 989 TFLOP/s dense BF16, 3.35 TB/s HBM3)",
            "flops": 989e12, "bandwidth": 3.35e12}
LLAMA3_8B = {"name": "Llama-3-8B in bf16", "parameters": 8.03e9, "layers": 32, "width": 4096,
             "kv_bytes_per_token": 2 * 32 * 8 * 128 * 2, "bytes_per_parameter": 2}
LLAMA32_1B = {"name": "Llama-3.2-1B in bf16", "parameters": 1.24e9, "layers": 16, "width": 2048,
              "kv_bytes_per_token": 2 * 16 * 8 * 64 * 2, "bytes_per_parameter": 2}


def pass_seconds(model: dict, gpu: dict, batch, new_tokens, cached, per_operation: bool = False) -> np.ndarray:
    """max(memory, compute) of one pass (or, per_operation, the weights' and attention's kernels
    each bound separately, then added); batch, new_tokens and cached broadcast against each other."""
    batch, new_tokens, cached = (np.asarray(x, dtype=np.float64) for x in (batch, new_tokens, cached))
    seen = cached + new_tokens
    weight_read = model["parameters"] * model["bytes_per_parameter"] / gpu["bandwidth"]
    weight_compute = batch * new_tokens * 2 * model["parameters"] / gpu["flops"]
    cache_read = batch * seen * model["kv_bytes_per_token"] / gpu["bandwidth"]
    attention_compute = batch * new_tokens * 4 * model["layers"] * model["width"] * seen / gpu["flops"]
    if per_operation:
        return np.maximum(weight_read, weight_compute) + np.maximum(cache_read, attention_compute)
    return np.maximum(weight_read + cache_read, weight_compute + attention_compute)


def modelled_target_cost(batch_sizes, max_new: int, context_lengths, model: dict = LLAMA3_8B,
                         gpu: dict = H100_SXM, per_operation: bool = False) -> np.ndarray:
    """Modelled seconds, shape (len(batch_sizes), max_new, len(context_lengths)): [b, n - 1, l]."""
    B = np.asarray(batch_sizes, dtype=np.float64)[:, None, None]
    n = np.arange(1, max_new + 1, dtype=np.float64)[None, :, None]
    L = np.asarray(context_lengths, dtype=np.float64)[None, None, :]
    return pass_seconds(model, gpu, B, n, L, per_operation)


def modelled_draft_cost(batch_sizes, context_lengths, model: dict = LLAMA32_1B, gpu: dict = H100_SXM,
                        draft_window: int | None = None, per_operation: bool = False) -> np.ndarray:
    """Modelled seconds of one draft pass of one token per row, shape (len(batch_sizes), len(context_lengths))."""
    B = np.asarray(batch_sizes, dtype=np.float64)[:, None]
    L = np.asarray(context_lengths, dtype=np.float64)[None, :]
    if draft_window is not None:
        L = np.minimum(L, draft_window)
    return pass_seconds(model, gpu, B, 1.0, L, per_operation)
