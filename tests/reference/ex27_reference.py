"""Exercise 27-adaptive-draft-length: an independent reference of the two rules and the adaptive decoder.

It imports nothing from solutions/. The rules are written from the exercise text: the stop test,
the moving average of the maximum-likelihood acceptance rate, and the table's row with the best
gamma computed in exact rational arithmetic by exercise 26's reference (tests/reference/
ex26_reference.py). The decoder takes exercise 25's reference steps (RaggedDecode: its own row
counters and ragged feeds, its inverse-CDF draft sampler, exercise 08's reference verifier, its trace
of rounds and calls); only the round's k is chosen here. Each round also records the rule (b)
length (gamma), whether it was a probe, the cap (most), the estimate before the round (ema) and
the path confidences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from tests.reference.ex25_reference import BatchTrace, RaggedDecode, Round
from tests.reference.ex26_reference import exact_best, exact_throughput


def reference_keep_drafting(confidence, threshold: float) -> bool:
    return not all(float(c) < threshold for c in confidence)


def reference_update_acceptance(ema: float, accepted: list[int], k: int, beta: float) -> float:
    if k == 0:
        return ema
    kept, tested = sum(accepted), sum(min(a + 1, k) for a in accepted)
    return beta * (kept / tested) + (1 - beta) * ema


def reference_table_row(active_rows: int, batch_sizes) -> int:
    below = [b for b, size in enumerate(batch_sizes) if int(size) <= active_rows]
    return below[-1] if below else 0


def reference_next_gamma(alpha: float, active_rows: int, target_cost, draft_cost, batch_sizes) -> int:
    row = reference_table_row(active_rows, batch_sizes)
    target = [[[float(c)] for c in target_cost[row]]]
    best, _ = exact_best(exact_throughput(target, [[float(draft_cost[row])]], [batch_sizes[row]], alpha))
    return best[0][0]


@dataclass
class AdaptiveRound(Round):
    ema: float = 0.0  # the estimate rule (b) read before the round
    gamma: int = 0  # rule (b)'s length (max_gamma without costs)
    most: int = 0  # the cap: gamma, and the tokens the rows still need
    confidences: list[list[float]] = field(default_factory=list)  # after each draft pass, one per active row
    closest: float = float("inf")  # the smallest |confidence - threshold| of a stop decision taken
    probe: bool = False  # rule (b) said 0 after probe_every rounds at 0: gamma 1 instead


def reference_adaptive_generate(target, draft, prompts, max_new_tokens: int, max_gamma: int, generator: torch.Generator,
                                temperature: float = 1.0, threshold: float = 0.0, costs=None, beta: float = 0.5,
                                initial_alpha: float = 0.5, probe_every: int | None = None) -> BatchTrace:
    """Runs on the given models (their rows are reset) and returns the full trace (rounds: AdaptiveRound)."""
    run = RaggedDecode(target, draft, prompts, max_new_tokens, generator, temperature)
    trace = run.trace
    ema = float(initial_alpha)
    zero_rounds = 0  # the run of rounds at gamma 0 since the last round that drafted or probed
    while any(len(tokens) < max_new_tokens for tokens in trace.tokens):
        number = len(trace.rounds) + 1
        active = [b for b in range(run.batch) if len(trace.tokens[b]) < max_new_tokens]
        gamma = max_gamma if costs is None else min(max_gamma, reference_next_gamma(ema, len(active), *costs))
        probe = gamma == 0 and probe_every is not None and zero_rounds >= probe_every
        if probe:
            gamma, zero_rounds = 1, 0
        elif gamma == 0:
            zero_rounds += 1
        else:
            zero_rounds = 0
        most = min(gamma, max(max_new_tokens - len(trace.tokens[b]) for b in active) - 1)
        round_ = AdaptiveRound(number, 0, ema=ema, gamma=gamma, most=most, probe=probe)
        pending = [run.sequences[b][run.draft_rows.lengths[b]:] if b in active else [] for b in range(run.batch)]
        drafted, q = {b: [] for b in active}, {b: [] for b in active}
        confidence = [1.0] * len(active)
        for j in range(1, most + 1):
            pending, probs = run.draft(pending, active, number, drafted, q)
            for index, b in enumerate(active):  # the path's probability under the draft, times its new token's
                confidence[index] *= float(probs[index, drafted[b][-1]])
            round_.confidences.append(list(confidence))
            if j < most:
                round_.closest = min([round_.closest] + [abs(c - threshold) for c in confidence])
                if not reference_keep_drafting(confidence, threshold):
                    break
        round_.k = len(round_.confidences)
        accepted = run.verify(round_, active, drafted, q)
        ema = reference_update_acceptance(ema, accepted, round_.k, beta)
    return trace
