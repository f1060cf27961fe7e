"""Exercise 22-eagle-head: reference solution. The exercise text is in exercises/ex22_eagle_head.py."""

import math

import torch
import torch.nn.functional as F
from ex01_speculative_step import speculative_step

from speckata.decoding.baseline import SpeculativeResult, check_count
from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities, sample_token
from speckata.heads.eagle import check_eagle_inputs, check_features


def eagle_pairs(hidden, ids):
    if not isinstance(hidden, torch.Tensor) or not hidden.is_floating_point() or hidden.ndim != 3:
        raise ValueError(f"hidden must be a floating-point tensor of shape (B, T, width); got {hidden!r:.80}")
    if not isinstance(ids, torch.Tensor) or ids.dtype != torch.int64 or tuple(ids.shape) != tuple(hidden.shape[:2]):
        raise ValueError(f"ids must be an int64 tensor of shape {tuple(hidden.shape[:2])} (hidden's B and T); "
                         f"got {ids!r:.80}")
    if ids.shape[1] < 2:
        raise ValueError(f"a window needs at least 2 positions to make a pair; got T = {ids.shape[1]}")
    # Row t reads f_t and the token one step ahead, x_{t+1} (already sampled), and predicts f_{t+1}.
    return hidden[:, :-1], ids[:, 1:], hidden[:, 1:]


def eagle_features(head, target, features, tokens):
    features, tokens = check_features(head, target, features, tokens)
    return head.layer(head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1)))


def eagle_loss(target, predicted, following, cls_weight=0.1):
    if not isinstance(predicted, torch.Tensor) or not isinstance(following, torch.Tensor) \
            or predicted.shape != following.shape or predicted.ndim < 1:
        raise ValueError(f"predicted and following must be tensors of one shape (..., width); got "
                         f"{tuple(getattr(predicted, 'shape', ()))} and {tuple(getattr(following, 'shape', ()))}")
    if predicted.shape[-1] != target.width:
        raise ValueError(f"features of width {predicted.shape[-1]} do not fit a target of hidden width {target.width}")
    if isinstance(cls_weight, bool) or not isinstance(cls_weight, (int, float)) or not math.isfinite(cls_weight) \
            or cls_weight < 0:
        raise ValueError(f"cls_weight must be a finite number >= 0; got {cls_weight!r}")
    regression = F.smooth_l1_loss(predicted, following)
    with torch.no_grad():  # the target's distribution at the true feature is a label, not something to train
        soft_labels = F.softmax(target.head(following), dim=-1)
    classification = -(soft_labels * F.log_softmax(target.head(predicted), dim=-1)).sum(dim=-1).mean()
    return regression + cls_weight * classification


@torch.no_grad()
def eagle_draft(target, head, features, tokens, gamma, generator, temperature=1.0):
    check_count("gamma", gamma, 1)
    features, tokens = check_features(head, target, features, tokens)
    if features.ndim != 2 or features.shape[0] < 1:
        raise ValueError(f"features must be one sequence's, of shape (n >= 1, width); got {tuple(features.shape)}")
    drafts, q = [], []
    for _ in range(gamma):
        # Recomputed over the whole sequence (no head cache): the causal layer gives the same rows.
        predicted = eagle_features(head, target, features, tokens)[-1]
        probs = next_token_probabilities(target.head(predicted), temperature)
        token = sample_token(probs, generator)
        drafts.append(token)
        q.append(probs)
        features = torch.cat([features, predicted[None]])  # the head's own feature, not the target's
        tokens = torch.cat([tokens, torch.tensor([token])])
    return drafts, torch.stack(q)


@torch.no_grad()
def eagle_generate(target, head, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0):
    sequence = check_eagle_inputs(target, head, prompt_ids, max_new_tokens, gamma, temperature)
    target.reset()
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
            drafts, q = eagle_draft(target, head, features, torch.tensor(sequence[1:]), k, generator, temperature)
        else:
            drafts, q = [], torch.empty((0, target.vocab_size), dtype=torch.float64)
        hidden, logits = target.forward_new_hidden(sequence[target.cache_length:] + drafts)
        p = next_token_probabilities(logits, temperature)
        tokens = speculative_step(p.numpy(), q.numpy(), drafts, GeneratorRNG(generator))
        accepted = len(tokens) - 1
        sequence += tokens
        result.tokens += tokens
        features = torch.cat([features, hidden[: accepted + 1]])  # the target's features of what it kept
        if target.cache_length > len(sequence) - 1:
            target.crop(len(sequence) - 1)
        result.accepted_per_pass.append(accepted)
        result.drafted_per_pass.append(k)
        result.target_passes += 1
        result.draft_passes += k
    return result
