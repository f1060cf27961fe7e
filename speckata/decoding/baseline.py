"""Plain autoregressive decoding: the baseline speculative decoding must match and beat.

``autoregressive_generate`` is what speculative decoding must match in distribution and beat in
time: one target pass per token. It uses the same helpers and draws as the exercises
(``speckata.decoding.sampling``): one ``sample_token`` per new token.

The exercises import their result types and input checks from here as well (their texts name this
module); they live in results.py and checks.py.

>>> import torch
>>> from speckata.models.markov import MarkovModel
>>> chain = MarkovModel([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])   # 0 -> 1 -> 2 -> 0
>>> autoregressive_generate(chain, [0], 4, torch.Generator().manual_seed(0))
[1, 2, 0, 1]
"""

from __future__ import annotations

import torch

from speckata.checks.decoding import (  # noqa: F401  (re-exported: exercises 10, 12 and 25 import them from here)
    check_batched_generation_inputs,
    check_count,
    check_cross_tokenizer_inputs,
    check_generation_inputs,
    check_prompt,
    check_temperature,
)
from speckata.decoding.results import (  # noqa: F401  (re-exported)
    BatchedSpeculativeResult,
    CrossTokenizerResult,
    SpeculativeResult,
)
from speckata.decoding.sampling import next_token_probabilities, sample_token


def autoregressive_generate(model, prompt_ids, max_new_tokens: int, generator: torch.Generator,
                            temperature: float = 1.0) -> list[int]:
    """``max_new_tokens`` tokens, one forward pass and one ``sample_token`` each.

    Resets the model, feeds the whole prompt in the first pass, then one token per pass.
    """
    prompt = check_prompt(prompt_ids, model.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_temperature(temperature)
    model.reset()
    new: list[int] = []
    pending = prompt
    while len(new) < max_new_tokens:
        logits = model.forward_new(pending)[-1]
        token = sample_token(next_token_probabilities(logits, temperature), generator)
        new.append(token)
        pending = [token]
    return new
