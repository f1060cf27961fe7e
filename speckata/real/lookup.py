"""Speculative decoding with a deterministic proposal: prompt lookup (exercise 13) on any cached model.

A proposal that is not sampled (an n-gram copy, a re-tokenised guess) is a draft whose q puts all
its mass on the proposed token x. Exercise 01's rule with that one-hot q reads: accept x with
probability p(x); on rejection sample from p with x removed, renormalised (the residual
max(0, p - q) is exactly that); if all are accepted, a bonus token from the next row of p. The
output is distributed exactly as the target's, at any temperature; at temperature 0 it is greedy
decoding. This is exercise 12's rule; exercise 12 was not in the repository when this was written,
so the rule is written once here (``verify_proposal``).

The draws follow exercise 10's contract (``speckata.models.sampling``): one ``draw_uniform`` per
proposed token tested and one ``sample_token`` for the replacement or the bonus token.
"""

from __future__ import annotations

import inspect

import torch

from speckata.models.decoding import SpeculativeResult, check_count, check_prompt
from speckata.models.sampling import check_temperature, draw_uniform, next_token_probabilities, sample_token

# A residual with no more mass than this comes from rounding alone (p puts everything on x).
RESIDUAL_MASS_EPS = 1e-12


def verify_proposal(p: torch.Tensor, proposal: list[int], generator: torch.Generator) -> list[int]:
    """Accepted proposals followed by one replacement or bonus token; p has len(proposal) + 1 rows."""
    tokens: list[int] = []
    for i, x in enumerate(proposal):
        if draw_uniform(generator) < float(p[i, x]):
            tokens.append(int(x))
            continue
        residual = p[i].clone()
        residual[x] = 0.0
        if float(residual.sum()) <= RESIDUAL_MASS_EPS:
            residual = p[i]
        tokens.append(sample_token(residual, generator))
        return tokens
    tokens.append(sample_token(p[len(proposal)], generator))
    return tokens


def occurs_earlier(context: list[int], size: int) -> bool:
    """Whether the last ``size`` tokens of ``context`` also occur earlier in it."""
    if size <= 0:
        return True
    suffix = context[-size:]
    return any(context[s : s + size] == suffix for s in range(len(context) - size - 1, -1, -1))


def lookup_generate(target, prompt_ids, max_new_tokens: int, gamma: int, generator: torch.Generator,
                    temperature: float = 1.0, n: int = 3, drafter=None, min_match: int = 2) -> SpeculativeResult:
    """``max_new_tokens`` tokens from ``target`` with proposals ``drafter(context, n, k)``.

    ``drafter`` defaults to exercise 13's ``ngram_draft`` from ``solutions/``. A round with an
    empty proposal is a plain decoding step. ``draft_passes`` stays 0: there is no draft model.
    ``min_match``: propose only when the context's last ``min_match`` tokens occur earlier in it;
    otherwise the round is a plain step. A lookup that falls back to a single token ("the", ",")
    mostly guesses wrong, and a wrong guess is not free: on a CPU the target's pass over 9 tokens
    costs about twice its pass over 1. Which tokens come out does not depend on this: the
    verification is exact whatever is proposed.

    On a model with ``forward_new(ids, last=...)`` (``HFCachedModel``) only the rows that are
    verified go through the output layer: the prompt's pass needs one row, not one per token.
    """
    if drafter is None:
        from speckata.real.graded import graded_function

        drafter = graded_function("ex13_ngram_draft", "ngram_draft")
    sequence = check_prompt(prompt_ids, target.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    rows_only = "last" in inspect.signature(target.forward_new).parameters  # HFCachedModel's shortcut
    target.reset()
    result = SpeculativeResult()
    while len(result.tokens) < max_new_tokens:
        k = min(gamma, max_new_tokens - len(result.tokens) - 1)
        confident = k > 0 and occurs_earlier(sequence, min_match)
        proposal = [int(t) for t in drafter(sequence, n, k)] if confident else []
        new = sequence[target.cache_length :] + proposal
        rows = len(proposal) + 1
        logits = target.forward_new(new, last=rows) if rows_only else target.forward_new(new)[-rows:]
        p = next_token_probabilities(logits, temperature)
        tokens = verify_proposal(p, proposal, generator)
        sequence += tokens
        result.tokens += tokens
        result.accepted_per_pass.append(len(tokens) - 1)
        result.drafted_per_pass.append(len(proposal))
        result.target_passes += 1
        if target.cache_length > len(sequence) - 1:  # roll back the rejected proposals
            target.crop(len(sequence) - 1)
    return result
