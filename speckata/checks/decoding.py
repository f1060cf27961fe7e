"""The input checks of the model layer (exercises 10-12 and the models themselves), in one place.

Every ValueError names the problem with a fixed phrase the grading suites look for ("prompt",
"max_new_tokens", "gamma", "temperature", "vocabulary", "contexts", "steps", "batch_size",
"learning_rate", "out of range", "integer", "batch", "context"). Integers follow
speckata/token_ids.py, one rule for every layer; "a vocabulary of V tokens" is the one wording.

>>> check_prompt([3, 1], vocab_size=4)
[3, 1]
>>> check_prompt([0, 4], vocab_size=4)
Traceback (most recent call last):
...
ValueError: prompt[1] = 4 is out of range for a vocabulary of 4 tokens
>>> check_contexts(torch.tensor([1, 2, 3]), vocab_size=4)
Traceback (most recent call last):
...
ValueError: contexts must be a 2-D integer tensor (N windows, T tokens) with N, T >= 1; got shape (3,)
"""

from __future__ import annotations

import math

import torch

from speckata.token_ids import checked_count, checked_token_ids, is_integer

check_count = checked_count  # (name, value, minimum) -> int


def as_id_list(name: str, ids) -> list:
    """The ids of one sequence as a list (a 1-D integer tensor, a list or a tuple)."""
    if isinstance(ids, torch.Tensor):
        if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool or ids.dim() > 1:
            raise ValueError(f"{name} must be a 1-D sequence of integer token ids; "
                             f"got a tensor of {ids.dtype} and shape {tuple(ids.shape)}")
        return ids.reshape(-1).tolist()
    return list(ids)


def check_prompt(prompt_ids, vocab_size: int) -> list[int]:
    prompt = as_id_list("the prompt", prompt_ids)
    if not prompt:
        raise ValueError("the prompt is empty: give at least one token id")
    return checked_token_ids("prompt", prompt, vocab_size)


def check_new_ids(ids, vocab_size: int) -> torch.Tensor:
    """forward_new's ids as a 1-D int64 tensor."""
    values = as_id_list("forward_new's ids", ids)
    if not values:
        raise ValueError("forward_new needs at least one new token id (got none)")
    return torch.tensor(checked_token_ids("token id", values, vocab_size), dtype=torch.int64)


def check_crop(length, cache_length: int) -> int:
    """The length to crop to; ValueError if it is not an int in [0, cache_length]."""
    if not is_integer(length):
        raise ValueError(f"crop needs an integer length; got {length!r}")
    length = int(length)
    if not 0 <= length <= cache_length:
        raise ValueError(f"cannot crop to {length}: the cache holds {cache_length} tokens (crop only rolls back)")
    return length


def check_temperature(temperature) -> None:
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or math.isnan(temperature):
        raise ValueError(f"temperature must be a number >= 0; got {temperature!r}")
    if temperature < 0 or math.isinf(temperature):
        raise ValueError(f"temperature must be a finite number >= 0; got {temperature!r}")


def check_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return float(value)


def check_pair(first, second, names: tuple[str, str] = ("draft", "target")) -> None:
    if first.vocab_size != second.vocab_size:
        raise ValueError(f"the {names[0]} and the {names[1]} must share one vocabulary; "
                         f"got sizes {first.vocab_size} and {second.vocab_size}")


def check_prompt_and_counts(prompt_ids, vocab_size: int, max_new_tokens, gamma, temperature) -> list[int]:
    """The prompt, max_new_tokens (0 or more), gamma (1 or more) and the temperature, in this order:
    the checks every speculative decoder shares after its models'; returns the prompt as a list of ints."""
    prompt = check_prompt(prompt_ids, vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    return prompt


def check_generation_inputs(target, draft, prompt_ids, max_new_tokens, gamma, temperature) -> list[int]:
    """The checks of exercise 10; returns the prompt as a list of ints.

    ValueError phrases: "prompt", "max_new_tokens", "gamma", "temperature", "vocabulary".
    """
    check_pair(target, draft, ("target", "draft"))
    return check_prompt_and_counts(prompt_ids, target.vocab_size, max_new_tokens, gamma, temperature)


def check_batched_generation_inputs(target, draft, prompts, max_new_tokens, gamma, temperature) -> list[list[int]]:
    """The checks of exercise 25; returns the prompts as lists of ints, one per row.

    ValueError phrases: "batch", "prompts[b]", "max_new_tokens", "gamma", "temperature",
    "vocabulary", "context".
    """
    check_pair(target, draft, ("target", "draft"))
    if isinstance(prompts, (str, bytes)) or not isinstance(prompts, (list, tuple)):
        raise ValueError(f"prompts must be a list of prompts, one per row of the batch; got {type(prompts).__name__}")
    if not prompts:
        raise ValueError("prompts is empty: a batch of 0 rows; give at least one prompt")
    rows = []
    for row, prompt in enumerate(prompts):
        try:
            rows.append(check_prompt(prompt, target.vocab_size))
        except ValueError as error:
            raise ValueError(f"prompts[{row}]: {error}") from None
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    for name, model in (("target", target), ("draft", draft)):
        context = getattr(model, "context", None)
        for row, prompt in enumerate(rows):
            if context is not None and len(prompt) + max_new_tokens + gamma - 1 > context:
                raise ValueError(f"prompts[{row}] holds {len(prompt)} tokens: with max_new_tokens = {max_new_tokens} "
                                 f"and gamma = {gamma} its row may need {len(prompt) + max_new_tokens + gamma - 1} "
                                 f"slots, more than the {name}'s context of {context}")
    return rows


def check_cross_tokenizer_inputs(prompt, max_new_tokens, gamma, temperature) -> str:
    """The checks of exercise 12 (the tokenizer checks the prompt's characters); returns the prompt.

    ValueError phrases: "prompt", "max_new_tokens", "gamma", "temperature".
    """
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"the prompt must be a non-empty string; got {prompt!r}")
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    return prompt


def check_contexts(contexts, vocab_size: int) -> torch.Tensor:
    if not isinstance(contexts, torch.Tensor) or contexts.dtype.is_floating_point or contexts.dtype.is_complex \
            or contexts.dtype == torch.bool or contexts.dim() != 2 or 0 in contexts.shape:
        shape = tuple(contexts.shape) if isinstance(contexts, torch.Tensor) else type(contexts).__name__
        raise ValueError(f"contexts must be a 2-D integer tensor (N windows, T tokens) with N, T >= 1; got shape {shape}")
    low, high = int(contexts.min()), int(contexts.max())
    if low < 0 or high >= vocab_size:
        raise ValueError(f"contexts hold token id {low if low < 0 else high}, out of range for a vocabulary of "
                         f"{vocab_size} tokens")
    return contexts.to(torch.int64)


def check_distill_inputs(draft, target, contexts, steps, batch_size, learning_rate, temperature) -> torch.Tensor:
    """All checks of exercise 11's distill; returns the contexts as int64.

    ValueError phrases: "contexts", "vocabulary", "steps", "batch_size", "learning_rate", "temperature".
    """
    check_pair(draft, target)
    contexts = check_contexts(contexts, target.vocab_size)
    check_count("steps", steps, 0)
    check_count("batch_size", batch_size, 1)
    check_positive("learning_rate", learning_rate)
    check_positive("temperature", temperature)
    return contexts
