"""Exercise 25-ragged-batch: an independent reference that records every round and every call.

It imports nothing from solutions/. It follows the exercise's contract with its own code: its
own row lengths (counters, never read from the models), its own ragged feeds
(tests/reference/ex25_feeds.py), its own inverse-CDF draft sampler, and exercise 08's rule from
exercise 08's independent reference (which runs exercise 01's reference on every row). It uses
the given helper that defines the contract's probabilities, next_token_probabilities, and draws
from the generator exactly as the contract says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from speckata.decoding.sampling import next_token_probabilities
from tests.reference.ex08_reference import contract_uniforms, expected_rows, unpadded
from tests.reference.ex25_feeds import ragged_feed
from tests.reference.ex25_recorded import nested


@dataclass
class RowRound:
    row: int
    drafted: list[int]
    accepted: int
    emitted: list[int]


@dataclass
class Round:
    number: int  # from 1
    k: int
    rows: list[RowRound] = field(default_factory=list)


@dataclass
class BatchTrace:
    tokens: list[list[int]]
    rounds: list[Round] = field(default_factory=list)
    calls: dict = field(default_factory=lambda: {"target": [], "draft": []})  # (round, recorded call)

    @property
    def accepted_per_row(self) -> list[list[int]]:
        return [[r.accepted for round_ in self.rounds for r in round_.rows if r.row == b] for b in range(len(self.tokens))]

    @property
    def drafted_per_round(self) -> list[int]:
        return [round_.k for round_ in self.rounds]


def inverse_cdf(weights: np.ndarray, u: float) -> int:
    """The first index whose cumulative weight exceeds u times the total; never a zero-weight index."""
    cumulative = np.cumsum(weights)
    above = np.flatnonzero(cumulative > u * cumulative[-1])
    return int(above[0]) if above.size else int(np.flatnonzero(weights > 0)[-1])


class Rows:
    """One model, its row lengths kept here, and the calls the contract makes on it."""

    def __init__(self, name: str, model, trace: BatchTrace, batch: int):
        self.name, self.model, self.trace = name, model, trace
        self.lengths = [0] * batch
        trace.calls[name].append((1, ("reset_rows", batch)))
        model.reset_rows(batch)

    def feed(self, pending: list[list[int]], number: int) -> torch.Tensor:
        ids, mask, positions = ragged_feed(self.lengths, pending)
        self.trace.calls[self.name].append((number, ("rows", nested(ids), tuple(self.lengths), nested(mask), nested(positions))))
        logits = self.model.forward_rows(ids, mask, positions)
        self.lengths = [length + len(tokens) for length, tokens in zip(self.lengths, pending)]
        return logits

    def crop(self, keep: list[int], number: int) -> None:
        lengths = [min(held, length) for held, length in zip(self.lengths, keep)]
        self.trace.calls[self.name].append((number, ("crop_rows", tuple(lengths), tuple(self.lengths))))
        self.model.crop_rows(lengths)
        self.lengths = lengths


class RaggedDecode:
    """One run of the contract's ragged-batch decoder: the rows' sequences, the trace, both models' rows
    (reset here, the target's first), and the two steps of a round. Exercise 27's reference chooses each
    round's k its own way and takes the same steps."""

    def __init__(self, target, draft, prompts, max_new_tokens: int, generator: torch.Generator, temperature: float):
        self.batch, self.max_new_tokens = len(prompts), max_new_tokens
        self.generator, self.temperature = generator, temperature
        self.sequences = [[int(t) for t in prompt] for prompt in prompts]
        self.trace = BatchTrace([[] for _ in range(self.batch)])
        self.target_rows = Rows("target", target, self.trace, self.batch)
        self.draft_rows = Rows("draft", draft, self.trace, self.batch)

    def draft(self, pending: list[list[int]], active: list[int], number: int, drafted: dict, q: dict) -> tuple:
        """One draft pass: one uniform per active row, then each row's token by the inverse CDF, appended to
        drafted[b] (its probabilities to q[b]). Returns the next feeds (each row its new token) and the
        probabilities (active rows, V)."""
        logits = self.draft_rows.feed(pending, number)
        probs = next_token_probabilities(torch.stack([logits[b, len(pending[b]) - 1] for b in active]), self.temperature)
        u = torch.rand((len(active),), generator=self.generator, dtype=torch.float64)
        pending = [[] for _ in range(self.batch)]
        for index, b in enumerate(active):
            token = inverse_cdf(probs[index].numpy(), float(u[index]))
            drafted[b].append(token)
            q[b].append(probs[index])
            pending[b] = [token]
        return pending, probs

    def verify(self, round_: Round, active: list[int], drafted: dict, q: dict) -> list[int]:
        """The target's pass over each active row's uncached tokens and its round_.k drafts, exercise 08's
        rule on every row, the emitted tokens kept, the round recorded and both models cropped to the new
        sequences less their last token. Returns the active rows' accepted counts."""
        sequences, trace, k, number = self.sequences, self.trace, round_.k, round_.number
        pending = [sequences[b][self.target_rows.lengths[b]:] + drafted[b] if b in active else [] for b in range(self.batch)]
        logits = self.target_rows.feed(pending, number)
        p = next_token_probabilities(torch.stack([logits[b, len(pending[b]) - k - 1 : len(pending[b])] for b in active]),
                                     self.temperature)
        q_all = torch.stack([torch.stack(q[b]) if k else torch.empty((0, p.shape[-1]), dtype=torch.float64) for b in active])
        drafts = torch.tensor([drafted[b] for b in active], dtype=torch.int64).reshape(len(active), k)
        u, v = contract_uniforms(self.generator, len(active), k, torch.float64, "cpu")
        accepted = []
        for b, expected in zip(active, expected_rows(p, q_all, drafts, u, v)):
            emitted = unpadded(expected.tokens)[: self.max_new_tokens - len(trace.tokens[b])]
            sequences[b] += emitted
            trace.tokens[b] += emitted
            accepted.append(expected.num_accepted)
            round_.rows.append(RowRound(b, drafted[b], expected.num_accepted, emitted))
        trace.rounds.append(round_)
        keep = [len(sequence) - 1 for sequence in sequences]
        self.target_rows.crop(keep, number)
        self.draft_rows.crop(keep, number)
        return accepted


def reference_batched_generate(target, draft, prompts, max_new_tokens: int, gamma: int, generator: torch.Generator,
                               temperature: float = 1.0) -> BatchTrace:
    """Runs on the given models (their rows are reset) and returns the full trace."""
    run = RaggedDecode(target, draft, prompts, max_new_tokens, generator, temperature)
    trace = run.trace
    while any(len(tokens) < max_new_tokens for tokens in trace.tokens):
        number = len(trace.rounds) + 1
        active = [b for b in range(run.batch) if len(trace.tokens[b]) < max_new_tokens]
        k = min(gamma, max(max_new_tokens - len(trace.tokens[b]) for b in active) - 1)
        pending = [run.sequences[b][run.draft_rows.lengths[b]:] if b in active else [] for b in range(run.batch)]
        drafted, q = {b: [] for b in active}, {b: [] for b in active}
        for _ in range(k):
            pending, _ = run.draft(pending, active, number, drafted, q)
        run.verify(Round(number, k), active, drafted, q)
    return trace
