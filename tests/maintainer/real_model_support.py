"""The helpers of tests/maintainer/test_real_model*.py: the prompts' ids, SmolLM2's next-token rows, and the
chi-square of the sampling tests (kept apart so those files stay small)."""

from __future__ import annotations

import numpy as np

from tests.shared.statistics import chi_square_sf

RUNS = 20_000
SEED = 20261213
ALPHA = 1e-3  # fail when the chi-square p-value is below this
TOP = 20  # chi-square bins: p's 20 likeliest tokens, and one bin for all the others
KEPT = 256  # the statistical tests keep each row's 256 likeliest tokens (most of the mass)


def binned(p: np.ndarray, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed counts and expected probabilities over TOP + 1 bins."""
    top = np.argsort(-p, kind="stable")[:TOP]
    position = np.full(p.shape[0], TOP)
    position[top] = np.arange(TOP)
    observed = np.bincount(position[tokens], minlength=TOP + 1)
    expected = np.append(p[top], 1 - p[top].sum())
    return observed, expected


def chi_square(p, tokens):
    observed, expected = binned(p, tokens)
    statistic = float(((observed - len(tokens) * expected) ** 2 / (len(tokens) * expected)).sum())
    return statistic, chi_square_sf(statistic, TOP)


def likeliest(rows, count: int = KEPT):
    """The columns of the ``count`` likeliest tokens of each row (their union, ascending)."""
    import torch

    return torch.unique(torch.cat([row.topk(count).indices for row in rows]))


def restricted(rows, columns):
    """The rows over ``columns`` only, renormalised: a real distribution with a vocabulary small
    enough that 20,000 verify steps take seconds, not minutes."""
    kept = rows[:, columns]
    return kept / kept.sum(dim=-1, keepdim=True)


def prompt_ids(real, index=0):
    from speckata.real.prompts import EQUALITY_PROMPTS, chat_ids

    return chat_ids(real["tokenizer"], EQUALITY_PROMPTS[index])


def next_token_rows(real, prompt, proposal):
    """SmolLM2's float64 next-token distributions after the prompt and after each proposed token."""
    from speckata.decoding.sampling import next_token_probabilities

    target = real["target"]
    target.reset()
    logits = target.forward_new(prompt + proposal)
    return next_token_probabilities(logits[-(len(proposal) + 1):], 1.0)
