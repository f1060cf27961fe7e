"""Exercise 12-cross-tokenizer: an independent reference that records every round.

It imports nothing from solutions/. The alignment is written with its own loops over the draft's
vocabulary and the proposal's characters, the accept rule in numpy; the given helpers that define
the contract (next_token_probabilities, draw_uniform, sample_token) are used as they are.
The trace keeps exercise 10's feeds and calls (FeedTrace, tests/reference/ex10_reference.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token
from tests.reference.ex10_calls import Call
from tests.reference.ex10_reference import FeedTrace


@dataclass
class CrossRound:
    text_length: int  # characters committed when the round began
    tail: str
    draft_feeds: list[tuple[int, ...]]
    drafted_text: str
    proposal: list[int]
    target_feed: tuple[int, ...]
    decisions: list[tuple] = field(default_factory=list)  # (position, token, kind, u, p)
    emitted: list[int] = field(default_factory=list)


@dataclass
class CrossTrace(FeedTrace):
    rounds: list[CrossRound] = field(default_factory=list)

    @property
    def proposed_per_pass(self):
        return [len(r.proposal) for r in self.rounds]

    @property
    def accepted_per_pass(self):
        return [len(r.emitted) - 1 for r in self.rounds]


def reference_proposal(drafted_text: str, tail: str, alphabet: str) -> str:
    """The proposed text after the tail, cut before the first character the target lacks."""
    if drafted_text[: len(tail)] != tail:
        return ""
    out = []
    for ch in drafted_text[len(tail) :]:
        if ch not in alphabet:
            break
        out.append(ch)
    return "".join(out)


def reference_verify(p: np.ndarray, proposal: list[int], generator, decisions: list) -> list[int]:
    emitted = []
    for position, token in enumerate(proposal):
        u = draw_uniform(generator)
        if u < p[position, token]:
            decisions.append((position, token, "keep", u, float(p[position, token])))
            emitted.append(token)
            continue
        decisions.append((position, token, "reject", u, float(p[position, token])))
        others = p[position].copy()
        others[token] = 0.0
        replacement = sample_token(torch.from_numpy(others if others.sum() > 1e-12 else p[position]), generator)
        decisions.append((position, replacement, "other token", None, None))
        emitted.append(replacement)
        return emitted
    bonus = sample_token(torch.from_numpy(p[len(proposal)]), generator)
    decisions.append((len(proposal), bonus, "bonus", None, None))
    emitted.append(bonus)
    return emitted


def reference_cross_generate(target, target_tokenizer, draft, draft_tokenizer, prompt: str, max_new_tokens: int,
                             gamma: int, generator, temperature: float = 1.0, draft_window: int = 64) -> CrossTrace:
    target.reset()
    draft.reset()
    alphabet = target_tokenizer.alphabet
    sequence = target_tokenizer.encode(prompt)
    in_draft_cache: list[int] = []
    target_holds = 0
    trace = CrossTrace()
    while len(trace.tokens) < max_new_tokens:
        room = max_new_tokens - len(trace.tokens) - 1
        text = target_tokenizer.decode(sequence)
        tail = draft_tokenizer.pieces(text)[-1]
        round_ = CrossRound(len(text), tail, [], "", [], ())
        number = len(trace.rounds) + 1
        candidates = [i for i in range(2, draft_tokenizer.vocab_size) if draft_tokenizer.vocabulary[i][: len(tail)] == tail]
        if room > 0 and candidates:
            ids = [draft_tokenizer.BOS] + draft_tokenizer.encode(text[: len(text) - len(tail)], add_bos=False)
            if len(ids) > draft_window:
                ids = [draft_tokenizer.BOS] + ids[-(draft_window - 1) :]
            shared = 0
            for a, b in zip(in_draft_cache, ids[:-1]):
                if a != b:
                    break
                shared += 1
            if draft.cache_length != shared:
                trace.calls.append(Call("draft", "crop", shared, draft.cache_length, number))
                draft.crop(shared)
            feed = tuple(ids[shared:])
            pieces, draft_holds = [], shared
            for step in range(gamma):
                round_.draft_feeds.append(feed)
                trace.calls.append(Call("draft", "forward", feed, draft_holds, number))
                draft_holds += len(feed)
                row = draft.forward_new(list(feed))[-1].double().numpy()
                if step == 0:
                    choice = candidates[int(np.argmax(row[candidates]))]
                else:
                    choice = int(np.argmax(row))
                pieces.append(choice)
                feed = (choice,)
            in_draft_cache = ids + pieces[:-1]
            round_.drafted_text = draft_tokenizer.decode(pieces)
            round_.proposal = target_tokenizer.encode(reference_proposal(round_.drafted_text, tail, alphabet))[:room]
        round_.target_feed = tuple(sequence[target_holds:]) + tuple(round_.proposal)
        trace.calls.append(Call("target", "forward", round_.target_feed, target_holds, number))
        logits = target.forward_new(list(round_.target_feed))
        target_holds += len(round_.target_feed)
        p = next_token_probabilities(logits[-(len(round_.proposal) + 1) :], temperature).numpy()
        round_.emitted = reference_verify(p, round_.proposal, generator, round_.decisions)
        sequence += round_.emitted
        trace.tokens += round_.emitted
        trace.rounds.append(round_)
        if target_holds > len(sequence) - 1:
            trace.calls.append(Call("target", "crop", len(sequence) - 1, target_holds, number))
            target.crop(len(sequence) - 1)
            target_holds = len(sequence) - 1
    return trace
