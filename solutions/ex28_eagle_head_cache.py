"""Exercise 28-eagle-head-cache: reference solution. The exercise text is in exercises/ex28_eagle_head_cache.py."""

import torch
from ex01_speculative_step import speculative_step

from speckata.decoding.baseline import SpeculativeResult, check_count
from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities, sample_token
from speckata.heads.eagle import check_eagle_inputs, check_features


@torch.no_grad()
def eagle_head_step(head, target, features, tokens):
    features, tokens = check_features(head, target, features, tokens)
    if features.ndim != 2 or features.shape[0] < 1:
        raise ValueError(f"features must be the new rows of one sequence, of shape (n >= 1, width); "
                         f"got {tuple(features.shape)}")
    return head.forward_new(head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1)))


@torch.no_grad()
def eagle_cached_draft(target, head, features, tokens, gamma, generator, temperature=1.0):
    check_count("gamma", gamma, 1)
    features, tokens = check_features(head, target, features, tokens)
    if features.ndim != 2 or features.shape[0] < 1:
        raise ValueError(f"features must be one sequence's, of shape (n >= 1, width); got {tuple(features.shape)}")
    n, cached = features.shape[0], head.cache_length
    if cached >= n:
        raise ValueError(f"the head's cache holds {cached} rows but the features only {n}: the cache must hold "
                         f"fewer rows than the features (crop it to the rows of the target's true features)")
    # The rows the cache lacks, all from the target's true features, in one call.
    predicted = eagle_head_step(head, target, features[cached:], tokens[cached:])[-1]
    drafts, q = [], []
    for i in range(gamma):
        probs = next_token_probabilities(target.head(predicted), temperature)
        token = sample_token(probs, generator)
        drafts.append(token)
        q.append(probs)
        if i < gamma - 1:  # the last draft's row would feed no draft
            predicted = eagle_head_step(head, target, predicted[None], torch.tensor([token]))[-1]
    return drafts, torch.stack(q)


@torch.no_grad()
def eagle_cached_generate(target, head, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0):
    sequence = check_eagle_inputs(target, head, prompt_ids, max_new_tokens, gamma, temperature)
    target.reset()
    head.reset()
    result = SpeculativeResult()
    if max_new_tokens == 0:
        return result
    features, logits = target.forward_new_hidden(sequence)
    result.target_passes += 1
    token = sample_token(next_token_probabilities(logits[-1], temperature), generator)
    sequence.append(token)
    result.tokens.append(token)
    while len(result.tokens) < max_new_tokens:
        k = min(gamma, max_new_tokens - len(result.tokens) - 1)
        if k:
            drafts, q = eagle_cached_draft(target, head, features, torch.tensor(sequence[1:]), k, generator,
                                           temperature)
        else:
            drafts, q = [], torch.empty((0, target.vocab_size), dtype=torch.float64)
        hidden, logits = target.forward_new_hidden(sequence[target.cache_length:] + drafts)
        p = next_token_probabilities(logits, temperature)
        tokens = speculative_step(p.numpy(), q.numpy(), drafts, GeneratorRNG(generator))
        accepted = len(tokens) - 1
        sequence += tokens
        result.tokens += tokens
        # The head keeps only rows of the target's true features: the drafts' rows go, the kept
        # drafts' too (computed from the head's own predictions); the next draft recomputes those.
        if head.cache_length > len(features):
            head.crop(len(features))
        features = torch.cat([features, hidden[: accepted + 1]])
        if target.cache_length > len(sequence) - 1:
            target.crop(len(sequence) - 1)
        result.accepted_per_pass.append(accepted)
        result.drafted_per_pass.append(k)
        result.target_passes += 1
        result.draft_passes += k
    return result
