"""Exercise 27-adaptive-draft-length: reference solution. The exercise text is in exercises/ex27_adaptive_draft_length.py."""

import numpy as np
import torch

from ex08_batched_verifier import speculative_step_batched
from ex25_ragged_batch import ragged_inputs
from ex26_serving_crossover import best_gamma
from speckata.checks.adaptive import check_beta, check_costs, check_probe_every, check_unit_interval
from speckata.decoding.baseline import BatchedSpeculativeResult, check_batched_generation_inputs
from speckata.decoding.sampling import next_token_probabilities
from speckata.torch_sampling import sample_rows


def keep_drafting(confidence, threshold) -> bool:
    threshold = check_unit_interval("threshold", threshold)
    confidence = np.asarray(confidence, dtype=np.float64).reshape(-1)
    if confidence.size == 0:
        raise ValueError("confidence is empty: give one path confidence per active row")
    return bool(np.any(confidence >= threshold))  # stop only when EVERY row is below the threshold


def update_acceptance(ema, accepted, k, beta) -> float:
    ema = check_unit_interval("ema", ema)
    beta = check_beta(beta)
    accepted = [int(a) for a in accepted]
    if not accepted or any(not 0 <= a <= k for a in accepted):
        raise ValueError(f"accepted must hold one count in 0..k = {k} per active row; got {accepted}")
    if k == 0:
        return ema  # a round without drafts tests nothing
    tested = sum(min(a + 1, k) for a in accepted)  # each row tested drafts up to its first rejection
    return beta * (sum(accepted) / tested) + (1 - beta) * ema


def next_gamma(alpha, active_rows, target_cost, draft_cost, batch_sizes) -> int:
    if isinstance(active_rows, bool) or not isinstance(active_rows, (int, np.integer)) or active_rows < 1:
        raise ValueError(f"active_rows must be an integer >= 1; got {active_rows!r}")
    target_cost, draft_cost = np.asarray(target_cost, dtype=np.float64), np.asarray(draft_cost, dtype=np.float64)
    best = best_gamma(target_cost[:, :, None], draft_cost[:, None], batch_sizes, alpha)[:, 0]
    row = max(int(np.searchsorted(np.asarray(batch_sizes), active_rows, side="right")) - 1, 0)
    return int(best[row])


def last_rows(logits, pending, active, count):
    """(len(active), count, V): the logits of the last `count` real tokens of each active row."""
    return torch.stack([logits[b, len(pending[b]) - count : len(pending[b])] for b in active])


def propose(draft, sequences, active, most, threshold, generator, temperature):
    """Up to `most` drafts per active row, stopping early by rule (a): tokens (A, k) and q (A, k, V)."""
    batch = len(sequences)
    pending = [sequences[b][draft.row_lengths[b] :] if b in active else [] for b in range(batch)]
    tokens, q = [], []
    confidence = torch.ones(len(active), dtype=torch.float64)
    for j in range(1, most + 1):
        logits = draft.forward_rows(*ragged_inputs(draft.row_lengths, pending))
        probs = next_token_probabilities(last_rows(logits, pending, active, 1)[:, 0], temperature)
        drafted = sample_rows(probs, torch.rand((len(active),), generator=generator, dtype=torch.float64))
        tokens.append(drafted)
        q.append(probs)
        confidence = confidence * probs.gather(1, drafted.unsqueeze(1)).squeeze(1).to(torch.float64)
        if j < most and not keep_drafting(confidence, threshold):
            break
        pending = [[] for _ in range(batch)]
        for row, b in enumerate(active):
            pending[b] = [int(drafted[row])]
    if not tokens:
        return (torch.empty((len(active), 0), dtype=torch.int64),
                torch.empty((len(active), 0, draft.vocab_size), dtype=torch.float64))
    return torch.stack(tokens, dim=1), torch.stack(q, dim=1)


def adaptive_speculative_generate(target, draft, prompts, max_new_tokens, max_gamma, generator, temperature=1.0,
                                  threshold=0.0, costs=None, beta=0.5, initial_alpha=0.5, probe_every=None):
    sequences = check_batched_generation_inputs(target, draft, prompts, max_new_tokens, max_gamma, temperature)
    threshold = check_unit_interval("threshold", threshold)
    beta = check_beta(beta)
    ema = check_unit_interval("initial_alpha", initial_alpha)
    probe_every = check_probe_every(probe_every)
    if check_costs(costs) is not None:
        next_gamma(ema, 1, *costs)  # the tables' errors before any model call
    batch = len(sequences)
    target.reset_rows(batch)
    draft.reset_rows(batch)
    result = BatchedSpeculativeResult([[] for _ in range(batch)], [[] for _ in range(batch)])
    idle = 0  # rounds in a row, just before this one, whose gamma was 0
    while True:
        active = [b for b in range(batch) if len(result.tokens[b]) < max_new_tokens]
        if not active:
            return result
        gamma = max_gamma if costs is None else min(max_gamma, next_gamma(ema, len(active), *costs))  # rule (b)
        if gamma == 0 and probe_every is not None and idle == probe_every:
            gamma = 1  # a probe: k = 0 rounds test nothing, so the estimate would never move again
        idle = idle + 1 if gamma == 0 else 0
        most = min(gamma, max(max_new_tokens - len(result.tokens[b]) for b in active) - 1)
        drafts, q = propose(draft, sequences, active, most, threshold, generator, temperature)  # rule (a)
        k = drafts.shape[1]
        pending = [[] for _ in range(batch)]
        for row, b in enumerate(active):
            pending[b] = sequences[b][target.row_lengths[b] :] + drafts[row].tolist()
        logits = target.forward_rows(*ragged_inputs(target.row_lengths, pending))
        p = next_token_probabilities(last_rows(logits, pending, active, k + 1), temperature)
        verified = speculative_step_batched(p, q, drafts, generator)
        accepted = [int(a) for a in verified.num_accepted]
        for row, b in enumerate(active):
            emitted = verified.tokens[row, : accepted[row] + 1].tolist()[: max_new_tokens - len(result.tokens[b])]
            sequences[b] += emitted
            result.tokens[b] += emitted
            result.accepted_per_row[b].append(accepted[row])
        ema = update_acceptance(ema, accepted, k, beta)
        result.drafted_per_round.append(k)
        result.target_passes += 1
        result.draft_passes += k
        for model in (target, draft):
            model.crop_rows([min(held, len(sequence) - 1) for held, sequence in zip(model.row_lengths, sequences)])
