"""Exercise 28-eagle-head-cache: an independent reference, written from the exercise text.

It imports neither solutions/ nor exercise 01, and it keeps no cache: the head's rows come from
exercise 22's independent reference, which recomputes the whole sequence (the causal layer gives
the same rows a cache gives, to float rounding), and the work the contract makes the head do is
counted by bookkeeping, row by row: what the cache lacks when a round's drafting starts, one row
per draft but the last, and the crop back to the rows of the target's true features.
"""

from __future__ import annotations

import torch

from tests.reference.ex22_reference import reference_draft, reference_features, reference_generate


@torch.no_grad()
def reference_rows(head, target, features: torch.Tensor, tokens: torch.Tensor, start: int) -> torch.Tensor:
    """The head's predicted features of rows start.. of one sequence, recomputed from row 0."""
    return reference_features(head, target, features, tokens)[start:]


def draft_calls(n: int, cached: int, gamma: int) -> list[tuple]:
    """The head's calls of one eagle_cached_draft: the n - cached missing rows, then gamma - 1 single rows."""
    return [("new", n - cached, cached)] + [("new", 1, n + j) for j in range(gamma - 1)]


def reference_cached_draft(target, head, features, tokens, gamma, generator, temperature, cached):
    """(drafts, q, the head's calls): exercise 22's drafts with the calls a cache of ``cached`` rows makes."""
    drafts, q = reference_draft(target, head, features, tokens, gamma, generator, temperature)
    return drafts, q, draft_calls(features.shape[0], cached, gamma)


def head_calls(prompt_length: int, drafted: list[int], accepted: list[int], stale: int) -> tuple[list[tuple], list[str]]:
    """The head's calls over a whole decode, and one line per round saying why."""
    calls, why = [("reset", stale)], []
    n, cached = prompt_length, 0  # n: the target's features so far; cached: the head's rows
    for index, (k, a) in enumerate(zip(drafted, accepted)):
        line = f"round {index + 1}: {n} features, the head's cache holds {cached} rows"
        if k:
            calls += draft_calls(n, cached, k)
            line += f"; drafting computes {n - cached} rows of the target's features, then {k - 1} of its own"
            cached = n + k - 1
        if cached > n:
            calls.append(("crop", n, cached))
            line += f"; {a} of {k} kept: crop({n}) drops the {cached - n} rows of the head's own features"
            cached = n
        why.append(line)
        n += a + 1
    return calls, why


def reference_cached_generate(target, head, prompt, max_new_tokens, gamma, generator, temperature, stale=0):
    """Exercise 22's run (tokens, statistics, the target's calls) with the head's calls of the contract."""
    run = reference_generate(target, head, prompt, max_new_tokens, gamma, generator, temperature)
    if max_new_tokens == 0:
        run.head_calls, run.head_rounds = [("reset", stale)], []
    else:
        run.head_calls, run.head_rounds = head_calls(len(prompt), run.drafted_per_pass, run.accepted_per_pass, stale)
    return run
