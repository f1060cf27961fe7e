"""``plain_generate``: plain decoding on SmolLM2, one target pass per token, the baseline of our decoders.

It draws exactly as ``speckata.decoding.baseline.autoregressive_generate`` (one ``sample_token`` per
new token, so the same seed gives the same tokens) and differs only where that reference pays for
what a real model does not need:

- the prompt's pass sends only its last row through the output layer (``last=1``): SmolLM2's
  output layer is 49152 x 576, a fifth of the model, and the prompt's other rows are never read;
- at temperature 0 the token is the argmax of the logits; the uniform that ``sample_token`` would
  draw is still drawn (sampling a one-hot distribution returns its one index whatever it draws),
  so the generator ends where the reference leaves it.
"""

from __future__ import annotations

import torch

from speckata.checks.decoding import check_count, check_prompt, check_temperature
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token


def plain_generate(model, prompt_ids, max_new_tokens: int, generator: torch.Generator,
                   temperature: float = 1.0) -> list[int]:
    """``max_new_tokens`` tokens from ``model`` (``HFCachedModel`` or ``LeanLlama``), one pass each."""
    pending = check_prompt(prompt_ids, model.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_temperature(temperature)
    model.reset()
    new: list[int] = []
    while len(new) < max_new_tokens:
        logits = model.forward_new(pending, last=1)[-1]
        if temperature == 0:
            draw_uniform(generator)  # what sample_token draws on the one-hot row
            token = int(logits.argmax())  # the first largest, as next_token_probabilities' one-hot
        else:
            token = sample_token(next_token_probabilities(logits, temperature), generator)
        new.append(token)
        pending = [token]
    return new
