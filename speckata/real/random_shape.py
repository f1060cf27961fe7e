"""A model of SmolLM2-135M's shape with random weights, for timing where the model file is not there.

What a pass costs does not depend on the weights' values, so ``python -m speckata.bench passes``
times this model, with the committed SmolLM2 EAGLE head, on any device: it needs transformers (the
real-model extra's packages) but not the 98 MB model file.
"""

from __future__ import annotations

import torch

SMOLLM2_CONFIG = {  # SmolLM2-135M-Instruct's config.json, the fields that shape a pass
    "hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 30, "num_attention_heads": 9,
    "num_key_value_heads": 3, "head_dim": 64, "vocab_size": 49152, "rms_norm_eps": 1e-5,
    "max_position_embeddings": 8192, "tie_word_embeddings": True, "hidden_act": "silu",
    "rope_parameters": {"rope_theta": 100000.0, "rope_type": "default"},
}


def smollm2_shape(device: str):
    """(LeanLlama of SmolLM2-135M's shape with random weights, the committed SmolLM2 EAGLE head)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from speckata.real.eagle_head import load_head
    from speckata.real.lean_llama import LeanLlama

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**SMOLLM2_CONFIG)).to(device).eval()
    return LeanLlama(model), load_head().to(device).eval()
