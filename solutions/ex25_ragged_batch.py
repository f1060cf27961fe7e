"""Exercise 25-ragged-batch: reference solution. The exercise text is in exercises/ex25_ragged_batch.py."""

import torch

from ex08_batched_verifier import speculative_step_batched
from speckata.decoding.baseline import BatchedSpeculativeResult, check_batched_generation_inputs
from speckata.decoding.sampling import next_token_probabilities
from speckata.models.ragged import PAD
from speckata.torch_sampling import sample_rows


def ragged_inputs(row_lengths, new_tokens):
    """forward_rows' (ids, attention_mask, position_ids) for rows holding row_lengths[b] tokens."""
    lengths = torch.tensor(list(row_lengths), dtype=torch.int64)
    counts = torch.tensor([len(tokens) for tokens in new_tokens], dtype=torch.int64)
    n = int(counts.max())
    ids = torch.full((len(new_tokens), n), PAD, dtype=torch.int64)
    for row, tokens in enumerate(new_tokens):
        ids[row, : len(tokens)] = torch.tensor(list(tokens), dtype=torch.int64)
    steps = torch.arange(n)
    real = steps < counts.unsqueeze(1)  # (B, n): which tokens are real, not padding
    here = lengths.unsqueeze(1) + steps  # (B, n): slot and position of token i of row b
    slots = torch.arange(int(lengths.max()) + n)
    attention_mask = (slots <= here.unsqueeze(2)) & real.unsqueeze(2)
    position_ids = torch.where(real, here, 0)
    return ids, attention_mask, position_ids


def draft_length(gamma, most_remaining):
    """The round's draft length: gamma, unless every row in the round needs fewer tokens."""
    return min(gamma, most_remaining - 1)


def feed(model, pending):
    """One forward_rows pass; row b is fed pending[b] (empty: all padding). Returns each row's logits."""
    return model.forward_rows(*ragged_inputs(model.row_lengths, pending))


def last_rows(logits, pending, active, count):
    """(len(active), count, V): the logits of the last `count` real tokens of each active row."""
    return torch.stack([logits[b, len(pending[b]) - count : len(pending[b])] for b in active])


def propose(draft, sequences, active, k, generator, temperature):
    """k drafts for every active row, k draft passes: tokens (A, k) and their distributions q (A, k, V)."""
    batch = len(sequences)
    pending = [sequences[b][draft.row_lengths[b] :] if b in active else [] for b in range(batch)]
    tokens, q = [], []
    for _ in range(k):
        logits = feed(draft, pending)
        probs = next_token_probabilities(last_rows(logits, pending, active, 1)[:, 0], temperature)
        drafted = sample_rows(probs, torch.rand((len(active),), generator=generator, dtype=torch.float64))
        tokens.append(drafted)
        q.append(probs)
        pending = [[] for _ in range(batch)]
        for row, b in enumerate(active):
            pending[b] = [int(drafted[row])]
    if not k:
        return torch.empty((len(active), 0), dtype=torch.int64), torch.empty((len(active), 0, draft.vocab_size),
                                                                             dtype=torch.float64)
    return torch.stack(tokens, dim=1), torch.stack(q, dim=1)


def batched_speculative_generate(target, draft, prompts, max_new_tokens, gamma, generator, temperature=1.0):
    sequences = check_batched_generation_inputs(target, draft, prompts, max_new_tokens, gamma, temperature)
    batch = len(sequences)
    target.reset_rows(batch)
    draft.reset_rows(batch)
    result = BatchedSpeculativeResult([[] for _ in range(batch)], [[] for _ in range(batch)])
    while True:
        active = [b for b in range(batch) if len(result.tokens[b]) < max_new_tokens]
        if not active:
            return result
        k = draft_length(gamma, max(max_new_tokens - len(result.tokens[b]) for b in active))
        drafts, q = propose(draft, sequences, active, k, generator, temperature)
        pending = [[] for _ in range(batch)]
        for row, b in enumerate(active):
            pending[b] = sequences[b][target.row_lengths[b] :] + drafts[row].tolist()
        p = next_token_probabilities(last_rows(feed(target, pending), pending, active, k + 1), temperature)
        verified = speculative_step_batched(p, q, drafts, generator)
        for row, b in enumerate(active):  # each row advances by its own accepted count
            accepted = int(verified.num_accepted[row])
            emitted = verified.tokens[row, : accepted + 1].tolist()[: max_new_tokens - len(result.tokens[b])]
            sequences[b] += emitted
            result.tokens[b] += emitted
            result.accepted_per_row[b].append(accepted)
        result.drafted_per_round.append(k)
        result.target_passes += 1
        result.draft_passes += k
        for model in (target, draft):  # each row rolled back on its own: all but its newest token
            model.crop_rows([min(held, len(sequence) - 1) for held, sequence in zip(model.row_lengths, sequences)])
