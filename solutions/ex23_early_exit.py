"""Exercise 23-early-exit: reference solution. The exercise text is in exercises/ex23_early_exit.py."""

import torch

from speckata.decoding.baseline import SpeculativeResult
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token
from speckata.models.early_exit import check_early_exit_inputs

# A residual with no more mass than this comes from rounding alone (p and q agree).
RESIDUAL_MASS_EPS = 1e-12


def early_exit_draft(model, sequence, exit_layer, gamma, generator, temperature=1.0):
    drafts, q, states = [], [], []
    pending = sequence[model.cache_length :]  # what every layer lacks: the newest token (the prompt at first)
    for _ in range(gamma):
        hidden = model.forward_layers(model.embed_new(pending), 0, exit_layer)
        states.append(hidden)  # layer exit_layer's output: verification continues from it
        probs = next_token_probabilities(model.exit_logits(hidden[-1]), temperature)
        token = sample_token(probs, generator)
        drafts.append(token)
        q.append(probs)
        pending = [token]
    if not drafts:
        return [], torch.empty(0, model.vocab_size, dtype=torch.float64), torch.empty(0, model.width)
    return drafts, torch.stack(q), torch.cat(states)


def early_exit_verify(model, sequence, drafts, states, exit_layer, temperature=1.0):
    # The first exit_layer layers have read everything but the last draft (or, with no draft, the
    # pending tokens): only that goes through them now.
    unread = (list(sequence) + list(drafts))[model.layer_cache_lengths[0] :]
    states = torch.cat([states, model.forward_layers(model.embed_new(unread), 0, exit_layer)])
    hidden = model.forward_layers(states, exit_layer, model.num_layers)
    return next_token_probabilities(model.exit_logits(hidden[-(len(drafts) + 1) :]), temperature)


def accept(p, q, drafts, generator):
    """Accepted drafts followed by one replacement or bonus token (the rule of exercise 01)."""
    tokens = []
    for i, x in enumerate(drafts):
        if draw_uniform(generator) < float(p[i, x] / q[i, x]):
            tokens.append(x)
            continue
        residual = torch.clamp(p[i] - q[i], min=0.0)
        if float(residual.sum()) <= RESIDUAL_MASS_EPS:
            residual = p[i]
        tokens.append(sample_token(residual, generator))
        return tokens
    tokens.append(sample_token(p[len(drafts)], generator))
    return tokens


def early_exit_generate(model, prompt_ids, max_new_tokens, exit_layer, gamma, generator, temperature=1.0):
    sequence = check_early_exit_inputs(model, prompt_ids, max_new_tokens, exit_layer, gamma, temperature)
    model.reset()
    result = SpeculativeResult()
    while len(result.tokens) < max_new_tokens:
        k = min(gamma, max_new_tokens - len(result.tokens) - 1)
        drafts, q, states = early_exit_draft(model, sequence, exit_layer, k, generator, temperature)
        p = early_exit_verify(model, sequence, drafts, states, exit_layer, temperature)
        tokens = accept(p, q, drafts, generator)
        sequence += tokens
        result.tokens += tokens
        result.accepted_per_pass.append(len(tokens) - 1)
        result.drafted_per_pass.append(k)
        result.target_passes += 1
        result.draft_passes += k
        if model.cache_length > len(sequence) - 1:  # every layer forgets the rejected drafts
            model.crop(len(sequence) - 1)
    return result
