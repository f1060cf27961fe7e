"""Exercises 10-speculative-generate and 12: the first differing event of a decoder's run.

The shared comparison (speckata.grading.events) over exercise 10's calls (ex10_calls): a call, a
round's count of draws, or the round's tokens, whichever comes first in the run. A round's calls
and its draws come first, then its tokens, then the crops that close it (exercise 12 crops the
draft when a round opens: those crops come with the round's calls). Both sides run on recorders
given the generator (RecordingModel(model, generator)), so the draws between calls are counted
from the generator's states.
"""

from __future__ import annotations

from speckata.grading.events import BEFORE, CLOSING, TOKENS, Difference, round_draw_difference
from speckata.models.recording import RecordingModel
from tests.reference.compare import first_difference
from tests.reference.ex10_calls import difference_headline, first_call_difference, learner_calls


def recorders(target, draft, generator) -> tuple[RecordingModel, RecordingModel]:
    return RecordingModel(target, generator), RecordingModel(draft, generator)


def calls_and_states(target, draft, draft_crops_open_a_round: bool = False):
    """Both recorders' calls (ex10_calls.Call) in the learner's order, each with the generator's state before it."""
    stamped = sorted([(s, i, "target") for i, s in enumerate(target.stamps)] + [(s, i, "draft") for i, s in enumerate(draft.stamps)])
    states = {"target": target.states, "draft": draft.states}
    return learner_calls(target, draft, draft_crops_open_a_round), [states[m][i] for _, i, m in stamped]


def draw_event(expected, got, start, expected_final, final, draft_crops_open_a_round: bool = False) -> Difference | None:
    """The first round whose count of uniforms differs (expected, got: the two sides' recorders, as pairs)."""
    theirs, their_states = calls_and_states(*expected, draft_crops_open_a_round)
    mine, my_states = calls_and_states(*got, draft_crops_open_a_round)
    their_entries = [(c.round, s) for c, s in zip(theirs, their_states) if c.compared]
    my_entries = [(c.round, s, order) for order, (c, s) in enumerate(zip(mine, my_states)) if c.compared]
    return round_draw_difference((their_entries, expected_final), ([e[:2] for e in my_entries], final), start,
                                 [e[2] for e in my_entries])


def call_event(expected_calls, calls, draft_crops_open_a_round: bool = False, complete: bool = True) -> Difference | None:
    """The first differing call; complete=False: the learner raised, so calls it never made are no difference."""
    found = first_call_difference(expected_calls, calls)
    if found is None or (not complete and found.got is None):
        return None
    call = found.got or found.expected
    closing = call.kind == "crop" and not (draft_crops_open_a_round and call.model == "draft")
    return Difference(call.round, CLOSING if closing else BEFORE, found.row, difference_headline(found, calls))


def tokens_event(expected_tokens, tokens, token_place) -> Difference | None:
    """The round that emits the first new token that differs; ``token_place(index)`` gives the reference's
    round of new token ``index`` and what the contract emits there ('' when nothing to add)."""
    index = first_difference(list(expected_tokens), list(tokens))
    if index is None:
        return None
    number, what = token_place(index)
    which = f"new token {index}: the contract's is {what}" if what else f"new token {index}"
    return Difference(number, TOKENS, 0, f"emitted another token than the contract's in round {number} ({which})")
