"""Exercises 20-tree-verification, 21-medusa-heads, 22-eagle-head, 23-early-exit, 28-30: a round's draws and tokens first.

Their suites compare the calls one for one with messages of their own (a tree's walk, an early
exit's layers). Before that, this finds the first differing event of any kind with
speckata.grading.events (a call, a round's count of uniforms, the round's tokens) and, when it is
not a call, reports it by name: a wrong count of draws reads "drew 3 uniforms in round 2", and a
wrong token appended "emitted [..] in round 2", not the next round's feed they changed. A round is
one verification pass of the target and the calls that close it (a crop, a keep_path); both
sides' recorders were given the generator, so the draws between calls are counted from the
generator's states (21 is greedy: no generator, so no draws, only tokens).
"""

from __future__ import annotations

import torch

from speckata.grading.events import (
    BEFORE,
    CLOSING,
    TOKENS,
    Difference,
    changes_nothing,
    earliest,
    round_draw_difference,
)
from speckata.grading.failures import GradingFailure


def entries(recorders, kinds, verifies, closes) -> list[tuple]:
    """(round, call, generator state before it, place among all the calls, model) of each compared call
    of ``recorders`` (the target first) in the order they were made; ``verifies(call)``: the target's call
    is a round's verification pass; ``closes(call)``: it ends the round of the pass before it."""
    merged = sorted((stamp, model, i) for model, recorder in enumerate(recorders) for i, stamp in enumerate(recorder.stamps))
    found, passes = [], 0
    for place, (_, model, i) in enumerate(merged):
        call = recorders[model].calls[i]
        if call[0] in kinds and not changes_nothing(call):
            found.append((max(passes, 1) if closes(call) else passes + 1, call, recorders[model].states[i], place, model))
        passes += model == 0 and verifies(call)
    return found


def call_difference(expected, got, closes) -> Difference | None:
    """The first of the learner's calls, on any model, that is not the contract's (no headline: the suite's
    own comparison says it)."""
    found = []
    for model in {e[4] for e in expected} | {e[4] for e in got}:
        mine, theirs = [e for e in got if e[4] == model], [e for e in expected if e[4] == model]
        index = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a[1] != b[1]), min(len(mine), len(theirs)))
        if index < max(len(mine), len(theirs)):
            entry = mine[index] if index < len(mine) else theirs[index]
            found.append(Difference(entry[0], CLOSING if closes(entry[1]) else BEFORE,
                                    entry[3] if index < len(mine) else float("inf"), ""))
    return earliest(*found)


def continues_as(tokens, expected) -> bool:
    """``tokens`` go on as ``expected`` for two tokens or more, to the end of the shorter."""
    length = min(len(tokens), len(expected))
    return length >= 2 and list(tokens[:length]) == list(expected[:length])


def tokens_difference(expected_tokens, accepted_per_pass, tokens, offset=0) -> Difference | None:
    """The first round (the reference's) whose new tokens the learner's differ from. A token left out or
    added is named as such when the learner's tokens after it are the contract's, shifted by one place
    (then the round's slice of theirs would show tokens of the next round). ``offset``: the index in
    result.tokens of ``tokens[0]``."""
    start = 0
    for number, accepted in enumerate(accepted_per_pass, start=1):
        end = start + accepted + 1
        if list(tokens[start:end]) != list(expected_tokens[start:end]):
            there = (f"the contract emits {list(expected_tokens[start:end])} there ({accepted} "
                     f"draft{'' if accepted == 1 else 's'} accepted, then one more token)")
            at = next(i for i in range(start, end)
                      if i >= min(len(tokens), len(expected_tokens)) or tokens[i] != expected_tokens[i])
            left_out = continues_as(tokens[at:], expected_tokens[at + 1:])
            added = continues_as(tokens[at + 1:], expected_tokens[at:])
            if left_out != added:  # both: a repeating stretch, where a shift cannot be told apart
                what = (f"left out the contract's token {expected_tokens[at]}" if left_out else f"added token {tokens[at]}")
                return Difference(number, TOKENS, 0, f"{what} at result.tokens[{at + offset}], in round {number}: "
                                                     f"{there}; its tokens after that are the contract's, one place "
                                                     f"{'early' if left_out else 'late'}")
            return Difference(number, TOKENS, 0, f"emitted {list(tokens[start:end])} in round {number}; {there}")
        start = end
    return None


def round_tokens(expected, got, prompt_token=False):
    """What ``tokens_difference`` compares, (the contract's tokens, its accepted_per_pass, the learner's
    tokens[, where they start in result.tokens]), or None when the tokens are the contract's.
    ``prompt_token``: the prompt's pass emits the first token before round 1, so the rounds' tokens
    are the rest (a different first token is left to the suite's token check)."""
    mine = getattr(got, "tokens", None)
    if not isinstance(mine, (list, tuple)):
        return None  # no list of tokens returned: the suite's own checks say what was
    mine = list(mine)
    if mine == list(expected.tokens):
        return None
    if not prompt_token:
        return list(expected.tokens), expected.accepted_per_pass, mine
    return (list(expected.tokens[1:]), expected.accepted_per_pass, mine[1:], 1) if mine[:1] == expected.tokens[:1] else None


def lead_with_round_event(name, expected, got, start, finals, tokens=None, closes=lambda call: False, detail=""):
    """Raise when the first differing event is a round's draws or tokens, not a call: ``expected`` and
    ``got`` are ``entries`` of the reference's and the learner's recorders, ``finals`` the two
    generators' states at the end (reference, learner; None without a generator), ``tokens``
    (``round_tokens``'s tuple: the reference's tokens, its accepted_per_pass, the learner's tokens[,
    their offset in result.tokens]) or None where the suite's own report covers them. ``detail``: the lines after the headline, or a function of the Difference
    that makes them (to show the round it names)."""
    draws = round_draw_difference(([e[:3:2] for e in expected], finals[0]), ([e[:3:2] for e in got], finals[1]),
                                  start, [e[3] for e in got])
    first = earliest(call_difference(expected, got, closes), draws, tokens_difference(*tokens) if tokens else None)
    if first is not None and first.headline:
        raise GradingFailure(f"{name} {first.headline}; everything before was right.\n"
                             f"{detail(first) if callable(detail) else detail}")


def hidden_pass(call) -> bool:
    """A round's verification pass in 21, 22 and 28: forward_new_hidden on a cache that holds the sequence
    (the prompt's pass has none)."""
    return call[0] in ("hidden", "forward") and call[-1] > 0


def is_crop(call) -> bool:
    return call[0] == "crop"


def lead_with_draws_or_tokens(got, recorder, expected, start, generator, case, function="eagle_generate",
                              kinds=("hidden", "forward", "crop"), verifies=hidden_pass, closes=is_crop):
    """Exercises 21, 22, 28 and 30 (the prompt's pass emits the first token before round 1; a draw for it
    counts in round 1): a round's count of draws or its tokens, named first when one differs before any
    call does. ``expected``: the reference's run, with its ``recorder``, ``rounds`` (one line each) and
    ``generator_state``; ``generator`` None where the decoder draws nothing (21, greedy)."""
    tokens = round_tokens(expected, got, prompt_token=True)
    finals = (expected.generator_state, generator.get_state()) if generator is not None else (None, None)
    if tokens is None and (generator is None or torch.equal(*finals)):
        return
    def rounds(first):  # the reference's rounds up to the one named, six at most
        return "\n".join("    " + line for line in expected.rounds[max(0, first.round - 6): max(first.round, 1)])
    lead_with_round_event(function, *(entries([r], kinds, verifies, closes) for r in (expected.recorder, recorder)),
                          start, finals, tokens, closes, lambda first: f"The reference's rounds:\n{rounds(first)}\n{case}")


def tree_pass(call) -> bool:
    return call[0] == "tree"


def keeps_path(call) -> bool:
    return call[0] == "keep_path"


def lead_with_tree_events(name, recorders, expected_recorders, generators, kinds, detail, tokens=None):
    """Exercises 20 and 29 (a round: the target's tree pass, then keep_path): a round's count of draws or
    its tokens (``tokens``: ``round_tokens``'s tuple, None when they agree) that differ before any call
    does are named first; the suite's walk report follows (``detail``, a function of the Difference).
    ``generators``: the reference's and the learner's, after their runs."""
    finals = tuple(generator.get_state() for generator in generators)
    if tokens is None and torch.equal(*finals):
        return
    start = expected_recorders[0].states[0]  # the contract's first call, reset(), comes before any draw
    lead_with_round_event(name, *(entries(r, kinds, tree_pass, keeps_path) for r in (expected_recorders, recorders)),
                          start, finals, tokens, keeps_path, detail)
