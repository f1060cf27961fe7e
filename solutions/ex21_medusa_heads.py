"""Exercise 21-medusa-heads: reference solution. The exercise text is in exercises/ex21_medusa_heads.py."""

import math

import torch
import torch.nn.functional as F

from speckata.decoding.baseline import SpeculativeResult
from speckata.heads.medusa import IGNORE_INDEX, check_head_count, check_hidden, check_medusa_inputs


def medusa_labels(ids, num_heads):
    num_heads = check_head_count(num_heads)
    if not isinstance(ids, torch.Tensor) or ids.ndim != 2 or ids.dtype != torch.int64:
        raise ValueError(f"ids must be an int64 tensor of shape (B, T); got {ids!r:.80}")
    B, T = ids.shape
    labels = torch.full((num_heads, B, T), IGNORE_INDEX, dtype=torch.int64)
    for k in range(num_heads):
        ahead = k + 2  # the target's own head predicts t + 1; head k one token further per k
        if ahead < T:
            labels[k, :, : T - ahead] = ids[:, ahead:]
    return labels


def medusa_logits(heads, hidden):
    hidden = check_hidden(heads, hidden)
    return torch.stack([projection(hidden + F.silu(block(hidden)))
                        for block, projection in zip(heads.blocks, heads.projections)])


def medusa_loss(logits, labels, decay=0.8):
    if not isinstance(logits, torch.Tensor) or not isinstance(labels, torch.Tensor) or logits.ndim < 2 \
            or labels.shape != logits.shape[:-1]:
        raise ValueError(f"labels must have the shape of logits without its last axis; got logits "
                         f"{tuple(getattr(logits, 'shape', ()))} and labels {tuple(getattr(labels, 'shape', ()))}")
    if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not math.isfinite(decay) or decay <= 0:
        raise ValueError(f"decay must be a finite number > 0; got {decay!r}")
    total = logits.new_zeros(())
    for k in range(logits.shape[0]):
        rows, targets = logits[k].reshape(-1, logits.shape[-1]), labels[k].reshape(-1)
        if bool((targets != IGNORE_INDEX).any()):  # a head with nothing to learn adds nothing (not NaN)
            total = total + decay ** k * F.cross_entropy(rows, targets, ignore_index=IGNORE_INDEX)
    return total


@torch.no_grad()
def medusa_generate(target, heads, prompt_ids, max_new_tokens):
    sequence = check_medusa_inputs(target, heads, prompt_ids, max_new_tokens)
    target.reset()
    result = SpeculativeResult()
    if max_new_tokens == 0:
        return result
    hidden, logits = target.forward_new_hidden(sequence)
    result.target_passes += 1
    last_hidden, last_logits = hidden[-1], logits[-1]
    while len(result.tokens) < max_new_tokens:
        token = int(last_logits.argmax())  # the target's own greedy token: always right
        sequence.append(token)
        result.tokens.append(token)
        room = max_new_tokens - len(result.tokens)
        if room == 0:
            break
        guesses = medusa_logits(heads, last_hidden).argmax(dim=-1).tolist()[:room]
        hidden, logits = target.forward_new_hidden([token] + guesses)
        result.target_passes += 1
        predicted = logits.argmax(dim=-1).tolist()  # row i: the target's choice after token, guesses[:i]
        accepted = 0
        while accepted < len(guesses) and guesses[accepted] == predicted[accepted]:
            accepted += 1
        sequence += guesses[:accepted]
        result.tokens += guesses[:accepted]
        target.crop(len(sequence))  # forget the rejected guesses' keys and values
        last_hidden, last_logits = hidden[accepted], logits[accepted]
        result.accepted_per_pass.append(accepted)
        result.drafted_per_pass.append(len(guesses))
    return result
