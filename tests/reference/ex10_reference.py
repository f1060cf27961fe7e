"""Exercise 10-speculative-generate: an independent reference that records every round.

It imports nothing from solutions/. It follows the exercise's contract with its own code (the
verify rule in numpy, the cache bookkeeping from explicit counters rather than from the models)
and records, for each round, what each model was fed, every uniform, ratio and decision, so the
grader can show a learner the first round and the first call where their decoder went elsewhere.
It uses the given helpers that define the contract: next_token_probabilities, draw_uniform and
sample_token.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token
from tests.reference.ex10_calls import Call

RESIDUAL_MASS_EPS = 1e-12


@dataclass
class Decision:
    position: int
    token: int  # the draft token tested, or the token sampled
    kind: str  # "accept", "reject", "replacement", "bonus"
    u: float | None = None
    ratio: float | None = None


@dataclass
class Round:
    start_length: int  # tokens in the sequence when the round began (prompt included)
    drafted: list[int]
    draft_feeds: list[tuple[int, ...]]
    target_feed: tuple[int, ...]
    decisions: list[Decision] = field(default_factory=list)
    emitted: list[int] = field(default_factory=list)

    @property
    def accepted(self) -> int:
        return sum(1 for d in self.decisions if d.kind == "accept")


@dataclass
class FeedTrace:
    """A draft-and-target decoder's run, round by round (exercises 10 and 12): each round records what
    the draft was fed (``draft_feeds``) and what the target was fed (``target_feed``)."""

    tokens: list[int] = field(default_factory=list)
    rounds: list = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)  # every call that changes a cache, in the contract's order

    @property
    def target_feeds(self) -> list[tuple[int, ...]]:
        return [r.target_feed for r in self.rounds]

    @property
    def draft_feeds(self) -> list[tuple[int, ...]]:
        return [feed for r in self.rounds for feed in r.draft_feeds]


@dataclass
class GenerationTrace(FeedTrace):
    rounds: list[Round] = field(default_factory=list)

    @property
    def accepted_per_pass(self) -> list[int]:
        return [r.accepted for r in self.rounds]

    @property
    def drafted_per_pass(self) -> list[int]:
        return [len(r.drafted) for r in self.rounds]


def reference_generate(target, draft, prompt, max_new_tokens: int, gamma: int, generator: torch.Generator,
                       temperature: float = 1.0) -> GenerationTrace:
    """Runs on the given (fresh or reset) models and returns the full trace."""
    target.reset()
    draft.reset()
    sequence = [int(t) for t in prompt]
    target_seen = draft_seen = 0  # tokens each cache holds, kept here independently of the models
    trace = GenerationTrace()
    while len(trace.tokens) < max_new_tokens:
        drafts_this_round = min(gamma, max_new_tokens - len(trace.tokens) - 1)
        round_ = Round(len(sequence), [], [], ())
        q_rows = []
        feed = tuple(sequence[draft_seen:])
        number = len(trace.rounds) + 1
        for _ in range(drafts_this_round):
            round_.draft_feeds.append(feed)
            trace.calls.append(Call("draft", "forward", feed, draft_seen, number))
            q = next_token_probabilities(draft.forward_new(list(feed))[-1], temperature)
            draft_seen += len(feed)
            token = sample_token(q, generator)
            round_.drafted.append(token)
            q_rows.append(q.numpy())
            feed = (token,)
        round_.target_feed = tuple(sequence[target_seen:]) + tuple(round_.drafted)
        trace.calls.append(Call("target", "forward", round_.target_feed, target_seen, number))
        logits = target.forward_new(list(round_.target_feed))
        target_seen += len(round_.target_feed)
        p_rows = next_token_probabilities(logits[-(drafts_this_round + 1) :], temperature).numpy()
        emitted = verify_round(p_rows, q_rows, round_, generator)
        round_.emitted = emitted
        sequence += emitted
        trace.tokens += emitted
        trace.rounds.append(round_)
        keep = len(sequence) - 1
        if target_seen > keep:
            trace.calls.append(Call("target", "crop", keep, target_seen, number))
            target.crop(keep)
            target_seen = keep
        if draft_seen > keep:
            trace.calls.append(Call("draft", "crop", keep, draft_seen, number))
            draft.crop(keep)
            draft_seen = keep
    return trace


def verify_round(p_rows: np.ndarray, q_rows: list[np.ndarray], round_: Round, generator) -> list[int]:
    emitted = []
    for position, (token, q) in enumerate(zip(round_.drafted, q_rows)):
        u = draw_uniform(generator)
        ratio = p_rows[position, token] / q[token]
        if u < ratio:
            round_.decisions.append(Decision(position, token, "accept", u, float(ratio)))
            emitted.append(token)
            continue
        round_.decisions.append(Decision(position, token, "reject", u, float(ratio)))
        residual = np.clip(p_rows[position] - q, 0.0, None)
        source = residual if residual.sum() > RESIDUAL_MASS_EPS else p_rows[position]
        replacement = sample_token(torch.from_numpy(source), generator)
        round_.decisions.append(Decision(position, replacement, "replacement"))
        emitted.append(replacement)
        return emitted
    bonus = sample_token(torch.from_numpy(p_rows[len(round_.drafted)]), generator)
    round_.decisions.append(Decision(len(round_.drafted), bonus, "bonus"))
    emitted.append(bonus)
    return emitted
