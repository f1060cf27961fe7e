"""Exercises 20-tree-verification, 23-early-exit and 29-medusa-tree: a round's draws and tokens, before their calls.

Their suites compare the calls one for one with messages of their own (a tree's walk, an early
exit's layers). Before that, this finds the first differing event of any kind with
speckata.grading.events (a call, a round's count of uniforms, the round's tokens) and, when it is
not a call, reports it by name: a wrong count of draws reads "drew 3 uniforms in round 2", not the
next round's feed it changed. A round is one verification pass of the target and the calls that
close it (a crop, a keep_path); both sides' recorders were given the generator, so the draws
between calls are counted from the generator's states.
"""

from __future__ import annotations

import torch

from speckata.grading.events import BEFORE, CLOSING, TOKENS, Difference, changes_nothing, earliest, round_draw_difference
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


def tokens_difference(expected_tokens, accepted_per_pass, tokens) -> Difference | None:
    """The first round (the reference's) whose new tokens the learner's differ from."""
    start = 0
    for number, accepted in enumerate(accepted_per_pass, start=1):
        end = start + accepted + 1
        if list(tokens[start:end]) != list(expected_tokens[start:end]):
            return Difference(number, TOKENS, 0, f"emitted {list(tokens[start:end])} in round {number}; the contract "
                                                 f"emits {list(expected_tokens[start:end])} there ({accepted} "
                                                 f"draft{'' if accepted == 1 else 's'} accepted, then one more token)")
        start = end
    return None


def lead_with_round_event(name, expected, got, start, finals, tokens=None, closes=lambda call: False, detail=""):
    """Raise when the first differing event is a round's draws or tokens, not a call: ``expected`` and
    ``got`` are ``entries`` of the reference's and the learner's recorders, ``finals`` the two
    generators' states at the end (reference, learner), ``tokens`` (reference's tokens, its
    accepted_per_pass, the learner's tokens) or None where the suite's own report covers them."""
    draws = round_draw_difference(([e[:3:2] for e in expected], finals[0]), ([e[:3:2] for e in got], finals[1]),
                                  start, [e[3] for e in got])
    first = earliest(call_difference(expected, got, closes), draws, tokens_difference(*tokens) if tokens else None)
    if first is not None and first.headline:
        raise GradingFailure(f"{name} {first.headline}; everything before was right.\n{detail}")


def tree_pass(call) -> bool:
    return call[0] == "tree"


def keeps_path(call) -> bool:
    return call[0] == "keep_path"


def lead_with_tree_draws(name, recorders, expected_recorders, generators, kinds, detail):
    """Exercises 20 and 29 (a round: the target's tree pass, then keep_path): a round's count of draws that
    differs before any call does is named first; the tokens are left to the suite's walk report.
    ``generators``: the reference's and the learner's, after their runs (nothing to do when they agree)."""
    finals = tuple(generator.get_state() for generator in generators)
    if torch.equal(*finals):
        return
    start = expected_recorders[0].states[0]  # the contract's first call, reset(), comes before any draw
    lead_with_round_event(name, *(entries(r, kinds, tree_pass, keeps_path) for r in (expected_recorders, recorders)),
                          start, finals, closes=keeps_path, detail=detail)
