"""Exercise 10-speculative-generate: reference solution. The exercise text is in exercises/ex10_speculative_generate.py."""

import torch

from speckata.decoding.baseline import SpeculativeResult, check_generation_inputs
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token

# A residual with no more mass than this comes from rounding alone (p and q agree).
RESIDUAL_MASS_EPS = 1e-12


def propose(draft, sequence, k, generator, temperature):
    """k draft tokens and the distributions they were sampled from; k draft passes."""
    drafts, q = [], []
    pending = sequence[draft.cache_length :]  # what the draft's cache lacks (after a bonus: 2 tokens)
    for _ in range(k):
        probs = next_token_probabilities(draft.forward_new(pending)[-1], temperature)
        token = sample_token(probs, generator)
        drafts.append(token)
        q.append(probs)
        pending = [token]
    return drafts, q


def verify(p, q, drafts, generator):
    """Accepted drafts followed by one replacement or bonus token (the rule of exercise 01)."""
    tokens = []
    for i, x in enumerate(drafts):
        if draw_uniform(generator) < float(p[i, x] / q[i][x]):
            tokens.append(x)
            continue
        residual = torch.clamp(p[i] - q[i], min=0.0)
        if float(residual.sum()) <= RESIDUAL_MASS_EPS:
            residual = p[i]
        tokens.append(sample_token(residual, generator))
        return tokens
    tokens.append(sample_token(p[len(drafts)], generator))
    return tokens


def speculative_generate(target, draft, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0):
    sequence = check_generation_inputs(target, draft, prompt_ids, max_new_tokens, gamma, temperature)
    target.reset()
    draft.reset()
    result = SpeculativeResult()
    while len(result.tokens) < max_new_tokens:
        k = min(gamma, max_new_tokens - len(result.tokens) - 1)
        drafts, q = propose(draft, sequence, k, generator, temperature)
        logits = target.forward_new(sequence[target.cache_length :] + drafts)
        p = next_token_probabilities(logits[-(k + 1) :], temperature)
        tokens = verify(p, q, drafts, generator)
        sequence += tokens
        result.tokens += tokens
        result.accepted_per_pass.append(len(tokens) - 1)
        result.drafted_per_pass.append(k)
        result.target_passes += 1
        result.draft_passes += k
        for model in (target, draft):  # roll back what was rejected; keep all but the newest token
            if model.cache_length > len(sequence) - 1:
                model.crop(len(sequence) - 1)
    return result
