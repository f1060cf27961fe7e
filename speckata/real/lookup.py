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

from speckata.checks.decoding import check_count, check_prompt, check_temperature
from speckata.decoding.results import SpeculativeResult
from speckata.decoding.sampling import next_token_probabilities
from speckata.real.graded import graded_function
from speckata.real.proposal_length import ProposalLength, match_length

MATCH_SEARCH = 32  # the longest match measured (longer ones share the top estimate anyway)


def probabilities(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """``next_token_probabilities(logits, temperature)``; at temperature 0 without its float64 copy of
    the logits (17 x 49152 of them): the one-hot of the first largest logit, the same tensor."""
    if temperature != 0:
        return next_token_probabilities(logits, temperature)
    p = torch.zeros(logits.shape, dtype=torch.float64)
    p[torch.arange(logits.shape[0]), logits.argmax(dim=-1)] = 1.0
    return p


def lookup_generate(target, prompt_ids, max_new_tokens: int, gamma: int, generator: torch.Generator,
                    temperature: float = 1.0, n: int = 3, drafter=None, min_match: int = 2,
                    pass_ms: dict[int, float] | None = None) -> SpeculativeResult:
    """``max_new_tokens`` tokens from ``target`` with proposals ``drafter(context, n, k)``.

    ``drafter`` defaults to exercise 13's ``ngram_draft`` from ``solutions/``; the proposals are
    verified by exercise 12's ``verify_proposal`` from there. Each round measures the match
    length m (the longest suffix of the context that occurs earlier in it), and proposes
    ``drafter(context, min(m, n), k)``: the tokens after the most recent place where the longest
    matching n-gram (at most ``n``) occurs. The count k (at most ``gamma``) is chosen by
    ``speckata.real.proposal_length.ProposalLength`` from m and the cost of a pass (``pass_ms``,
    milliseconds per pass over j new tokens; a typical CPU profile when None): 0 makes the round
    a plain decoding step, and so does a match shorter than ``min_match``. Which tokens come out
    does not depend on any of this: the verification is exact whatever is proposed.
    ``draft_passes`` stays 0: there is no draft model.

    On a model with ``forward_new(ids, last=...)`` (``HFCachedModel``, ``LeanLlama``) only the rows
    that are verified go through the output layer: the prompt's pass needs one row, not one per token.
    """
    if drafter is None:
        drafter = graded_function("ex13_ngram_draft", "ngram_draft")
    verify_proposal = graded_function("ex12_cross_tokenizer", "verify_proposal")
    sequence = check_prompt(prompt_ids, target.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_count("n", n, 1)
    check_temperature(temperature)
    rows_only = "last" in inspect.signature(target.forward_new).parameters  # the real models' shortcut
    length = ProposalLength(pass_ms, most=gamma)
    target.reset()
    result = SpeculativeResult()
    while len(result.tokens) < max_new_tokens:
        limit = max_new_tokens - len(result.tokens) - 1
        match = match_length(sequence, MATCH_SEARCH) if limit > 0 else 0
        k = length.choose(match, limit) if match >= min_match else 0
        proposal = [int(t) for t in drafter(sequence, min(match, n), k)] if k else []
        new = sequence[target.cache_length :] + proposal
        rows = len(proposal) + 1
        logits = target.forward_new(new, last=rows) if rows_only else target.forward_new(new)[-rows:]
        p = probabilities(logits, temperature)
        tokens = verify_proposal(p, proposal, generator)
        length.update(match, len(proposal), len(tokens) - 1)
        sequence += tokens
        result.tokens += tokens
        result.accepted_per_pass.append(len(tokens) - 1)
        result.drafted_per_pass.append(len(proposal))
        result.target_passes += 1
        if target.cache_length > len(sequence) - 1:  # roll back the rejected proposals
            target.crop(len(sequence) - 1)
    return result
