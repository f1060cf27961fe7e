"""``HFCachedModel``: a transformers causal LM behind the interface of ``speckata.models.interface``.

One sequence lives in a ``DynamicCache``. ``forward_new(ids)`` runs ONE forward pass over the n
new tokens against it and returns their next-token logits (n, V); ``crop(length)`` rolls the cache
back with ``DynamicCache.crop`` (what a rejection needs); ``reset()`` starts a new cache. So
exercise 10's ``speculative_generate(target, draft, ...)`` runs on SmolLM2 unchanged:

    target = HFCachedModel(load_target())

``vocab_size`` is the width of the logits (the model's embedding rows), which for SmolLM2 is the
tokenizer's 49152.
"""

from __future__ import annotations

import inspect

import torch

from speckata.models.interface import check_crop, check_new_ids


class HFCachedModel:
    def __init__(self, model):
        from transformers import DynamicCache

        self.model = model.eval()
        # transformers 5.x renamed the forward argument past_key_values to cache.
        parameters = inspect.signature(model.forward).parameters
        self._cache_argument = "cache" if "cache" in parameters else "past_key_values"
        try:
            DynamicCache(config=model.config)
            self._new_cache = lambda: DynamicCache(config=model.config)
        except TypeError:  # older transformers: a DynamicCache takes no config
            self._new_cache = DynamicCache
        self.vocab_size = int(model.get_output_embeddings().weight.shape[0])
        self.reset()

    @property
    def cache_length(self) -> int:
        return self._length

    def reset(self) -> None:
        self.cache = self._new_cache()
        self._length = 0

    def crop(self, length: int) -> None:
        length = check_crop(length, self._length)
        if length == 0:
            self.reset()
        elif length < self._length:
            # A negative argument removes that many tokens, in transformers 4.x and 5.x alike.
            self.cache.crop(length - self._length)
        self._length = length

    @torch.inference_mode()
    def forward_new(self, ids, last: int | None = None) -> torch.Tensor:
        """Logits (n, V) after each new token; with ``last``, only the last ``last`` rows (the output
        layer then runs on those alone: a prompt of 130 tokens needs 1 row, not 130)."""
        ids = check_new_ids(ids, self.vocab_size)
        start, n = self._length, ids.shape[0]
        positions = torch.arange(start, start + n)
        keep = {} if last is None else {"logits_to_keep": max(1, min(int(last), n))}
        out = self.model(input_ids=ids[None], position_ids=positions[None], use_cache=True,
                         **{self._cache_argument: self.cache}, **keep)
        self._length = start + n
        return out.logits[0].float()
