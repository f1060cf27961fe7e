"""Given helpers for exercises 10-12: logits to probabilities, and drawing with a torch generator.

The random-draw contract of the end-to-end exercises is built from these two calls, so a grader
holding a generator with the same seed knows every number you draw:

- :func:`draw_uniform` takes exactly one ``torch.rand((), dtype=torch.float64, generator=g)``;
- :func:`sample_token` takes exactly one uniform and returns the first index whose normalised
  cumulative probability exceeds it (the same rule as ``speckata.sample``; never a zero-probability
  index).

>>> import torch
>>> next_token_probabilities(torch.tensor([[1.0, 3.0, 3.0]]), temperature=0).tolist()   # ties: first
[[0.0, 1.0, 0.0]]
>>> g = torch.Generator().manual_seed(0)
>>> round(draw_uniform(g), 4), sample_token(torch.tensor([0.5, 0.0, 0.5], dtype=torch.float64), g)   # 2nd u: 0.7078
(0.9701, 2)
"""

from __future__ import annotations

import torch

from speckata.checks.decoding import check_temperature  # noqa: F401  (the exercises import it from here)
from speckata.sampling import sample


def next_token_probabilities(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """Float64 probabilities from logits (..., V): softmax(logits / temperature), or at
    temperature 0 the one-hot of the largest logit (the first one on a tie)."""
    check_temperature(temperature)
    logits = logits.detach().to(torch.float64)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(torch.float64)
    return torch.softmax(logits / temperature, dim=-1)


def draw_uniform(generator: torch.Generator) -> float:
    """One uniform number in [0, 1) from ``generator``: the only way the exercises draw."""
    return float(torch.rand((), dtype=torch.float64, generator=generator))


def sample_token(probs: torch.Tensor, generator: torch.Generator) -> int:
    """One token from ``probs`` (1-D, non-negative, positive total) with one :func:`draw_uniform`.

    This is ``speckata.sample`` (the one inverse-CDF rule of the kata: the first index whose
    normalised cumulative sum exceeds u, never a zero-probability index) fed by the generator.
    """
    weights = torch.as_tensor(probs, dtype=torch.float64)
    if weights.dim() != 1 or weights.numel() == 0:
        raise ValueError(f"sample_token needs a non-empty 1-D tensor of probabilities; got shape {tuple(weights.shape)}")
    try:
        return sample(weights.numpy(), GeneratorRNG(generator))
    except ValueError as error:
        raise ValueError(str(error).replace("sample:", "sample_token:", 1)) from None


class GeneratorRNG:
    """Adapts a torch generator to the ``rng.random()`` of exercise 01, drawing with draw_uniform.

    So ``speculative_step(p.numpy(), q.numpy(), drafts, GeneratorRNG(g))`` draws exactly the
    numbers the end-to-end contract prescribes.
    """

    def __init__(self, generator: torch.Generator):
        self.generator = generator

    def random(self) -> float:
        return draw_uniform(self.generator)
