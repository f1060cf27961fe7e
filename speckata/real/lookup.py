"""Speculative decoding with a deterministic proposal: prompt lookup (exercise 13) on any cached model.

A proposal that is not sampled (an n-gram copy, a re-tokenised guess) is a draft whose q puts all
its mass on the proposed token x. Exercise 01's rule with that one-hot q reads: accept x with
probability p(x); on rejection sample from p with x removed, renormalised (the residual
max(0, p - q) is exactly that); if all are accepted, a bonus token from the next row of p. The
output is distributed exactly as the target's, at any temperature; at temperature 0 it is greedy
decoding. This is exercise 12's rule, so the decoder calls exercise 12's ``verify_proposal`` from
the graded folder (``solutions/`` by default), as it calls exercise 13's ``ngram_draft``.
"""

from __future__ import annotations

import inspect

import torch

from speckata.models.checks import check_count, check_prompt, check_temperature
from speckata.models.results import SpeculativeResult
from speckata.models.sampling import next_token_probabilities
from speckata.real.graded import graded_function


def occurs_earlier(context: list[int], size: int) -> bool:
    """Whether the last ``size`` tokens of ``context`` also occur earlier in it."""
    if size <= 0:
        return True
    suffix = context[-size:]
    return any(context[s : s + size] == suffix for s in range(len(context) - size - 1, -1, -1))


def lookup_generate(target, prompt_ids, max_new_tokens: int, gamma: int, generator: torch.Generator,
                    temperature: float = 1.0, n: int = 3, drafter=None, min_match: int = 2) -> SpeculativeResult:
    """``max_new_tokens`` tokens from ``target`` with proposals ``drafter(context, n, k)``.

    ``drafter`` defaults to exercise 13's ``ngram_draft`` from ``solutions/``; the proposals are
    verified by exercise 12's ``verify_proposal`` from there. A round with an
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
        drafter = graded_function("ex13_ngram_draft", "ngram_draft")
    verify_proposal = graded_function("ex12_cross_tokenizer", "verify_proposal")
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
