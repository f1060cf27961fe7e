"""The tiny draft for SmolLM2: two transformer layers on SmolLM2's own (frozen) embeddings.

It is a ``LlamaForCausalLM`` with SmolLM2's config cut to two layers, so it shares the tokenizer
and the 49152-row tied embedding/output matrix with the target and works both with our decoders
(through ``HFCachedModel``) and as transformers' ``generate(assistant_model=...)``. Its layers
start as SmolLM2's first two and are distilled from SmolLM2 by ``python -m
speckata.real.train_draft``. Only what training changed is saved (the two layers and the final
norm, float16, 14 MB: too large to commit, so it lives beside the model cache, in
``.speckata/real/tiny-draft/``); the embeddings come from the target's cache at load time.
"""

from __future__ import annotations

import copy
import json

import torch

from speckata.real.load import cache_root

WEIGHTS = cache_root() / "tiny-draft"
WEIGHTS_FILE = WEIGHTS / "tiny_draft.safetensors"
SETTINGS_FILE = WEIGHTS / "tiny_draft.json"


def trained_prefixes(layers: int) -> tuple[str, ...]:
    return tuple(f"model.layers.{i}." for i in range(layers)) + ("model.norm.",)


def draft_from_target(target, layers: int = 2):
    """A draft with the target's embeddings and copies of its first ``layers`` layers and final norm."""
    from transformers import LlamaForCausalLM

    config = copy.deepcopy(target.config)
    config.num_hidden_layers = layers
    if getattr(config, "layer_types", None):
        config.layer_types = config.layer_types[:layers]
    draft = LlamaForCausalLM(config)
    state = {k: v for k, v in target.state_dict().items() if k != "lm_head.weight"}
    keep = {k: v.clone() for k, v in state.items() if not k.startswith("model.layers.") or k.startswith(trained_prefixes(layers))}
    draft.load_state_dict(keep, strict=False)
    draft.model.embed_tokens.weight = target.model.embed_tokens.weight  # shared, frozen
    draft.tie_weights()
    draft.generation_config = copy.deepcopy(target.generation_config)
    return draft.to(torch.float32).eval()


def trained_state(draft) -> dict[str, torch.Tensor]:
    layers = draft.config.num_hidden_layers
    return {k: v.detach().to(torch.float16).contiguous() for k, v in draft.state_dict().items() if k.startswith(trained_prefixes(layers))}


def save_draft(draft, settings: dict) -> None:
    from safetensors.torch import save_file

    WEIGHTS.mkdir(parents=True, exist_ok=True)
    save_file(trained_state(draft), WEIGHTS_FILE)
    SETTINGS_FILE.write_text(json.dumps(settings, indent=1) + "\n")


def load_draft(target):
    """The committed tiny draft, sharing ``target``'s embeddings (float32, eval mode)."""
    from safetensors.torch import load_file

    if not WEIGHTS_FILE.is_file():
        raise FileNotFoundError(f"{WEIGHTS_FILE} is missing: train it with python -m speckata.real.train_draft")
    state = load_file(WEIGHTS_FILE)
    layers = 1 + max(int(k.split(".")[2]) for k in state if k.startswith("model.layers."))
    draft = draft_from_target(target, layers)
    draft.load_state_dict({k: v.to(torch.float32) for k, v in state.items()}, strict=False)
    return draft.eval()


def settings() -> dict:
    return json.loads(SETTINGS_FILE.read_text()) if SETTINGS_FILE.is_file() else {}
