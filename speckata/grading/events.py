"""The first differing event of a replayed trace: one comparison for every exercise that replays one.

A decoder's run is a stream of events: the calls it makes on each model, the random numbers it
draws between them, the tokens each round emits. An exercise that replays a reference's trace
finds, for each kind, where the learner's stream first leaves the contract's, and reports the one
that comes first in the round they belong to (10 and 12: tests/reference/ex10_events.py; 25 and
27: ex25_replay.py; 20-23 and 28-30: tests/reference/round_events.py; 19-23 and 28-30 compare their
calls with the crop rule, and lead a raise with ``call_mismatch``):

    phase 0 (BEFORE)   the calls of a round and the draws made between them,
    phase 1 (TOKENS)   the tokens the round emitted,
    phase 2 (CLOSING)  the crops that end the round,

ties broken by the learner's own order. A wrong append then reads "emitted ... in round 2", not
"cropped the draft's cache ... in round 2"; a wrong count of uniforms reads "drew 3 uniforms in
round 1; the contract draws 2", not a later draft feed.

The crop rule (said once for learners in speckata/models/interface.py): a crop to the cache's own
length, a crop_rows to the row lengths held, and a reset of an empty cache change nothing, so
neither side's are compared: ``changes_nothing`` and ``compared``.

When the learner's function raises, ``lead_with_difference`` compares what was recorded up to the
exception with the contract's calls and puts the first difference before the exception.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from speckata.grading.failures import GradingFailure

BEFORE, TOKENS, CLOSING = 0, 1, 2
CROPS = ("crop", "crop_rows", "crop_layers")


def changes_nothing(call: tuple) -> bool:
    """A recorded call that leaves the model as it was: crop(n) with n tokens cached, crop_rows(lengths)
    with exactly those lengths held, reset() of an empty cache (the recorders' formats,
    speckata.models.recording)."""
    kind = call[0]
    if kind == "crop":
        return call[1] == call[-1]
    if kind == "crop_rows":
        return tuple(call[1]) == tuple(call[2])
    if kind == "reset":
        return call[-1] == 0
    return False


def compared(calls) -> list[tuple]:
    """The calls that change a model: every call but those that change nothing."""
    return [call for call in calls if not changes_nothing(call)]


@dataclass(frozen=True)
class Difference:
    """Where a learner's run first leaves the contract for one kind of event, and what it did there."""

    round: int  # from 1, as the exercise texts count rounds
    phase: int  # BEFORE, TOKENS or CLOSING
    order: float  # the learner's order (its call index); a draw sits just before the call that follows it
    headline: str  # what the learner did, in words, starting with a verb: "drew 3 uniforms in round 1; ..."

    def key(self):
        return self.round, self.phase, self.order


def earliest(*differences: Difference | None) -> Difference | None:
    """The difference that comes first in the run, or None when there is none."""
    found = [d for d in differences if d is not None]
    return min(found, key=Difference.key) if found else None


# Draws ------------------------------------------------------------------------------------------------

def generator_state(generator: torch.Generator | None):
    return None if generator is None else generator.get_state()


def count_draws(start, end, limit: int = 4096) -> int | None:
    """How many float64 uniforms take a generator from state ``start`` to ``end`` (None: not a whole
    number of them within ``limit``, e.g. another sampler's draws)."""
    if torch.equal(start, end):
        return 0
    probe = torch.Generator()
    probe.set_state(start)
    for count in range(1, limit + 1):
        torch.rand((), dtype=torch.float64, generator=probe)
        if torch.equal(probe.get_state(), end):
            return count
    return None


@dataclass(frozen=True)
class Mark:
    """The generator's state just before a compared call (or at the end: ``order`` past the last call),
    with the round of the call before it, the round the draws since then belong to."""

    round: int
    order: float
    state: object


def marks(rounds_and_states, final_state, start, first_round: int = 1, orders=None) -> list[Mark]:
    """One Mark per change of the generator's state, from ``start`` (its state when the function was
    called): ``rounds_and_states`` lists, for each compared call in the order it was made, (its round,
    the generator's state before it); ``final_state`` is the state when the function returned.
    ``orders``: each call's place among all the learner's calls (default: its place in the list)."""
    found, previous_round, previous = [], first_round, start
    places = list(range(len(rounds_and_states)) if orders is None else orders)
    places.append(places[-1] + 1 if places else 0)
    for place, (round_, state) in zip(places, [*rounds_and_states, (None, final_state)]):
        if state is not None and not torch.equal(previous, state):
            found.append(Mark(previous_round, place - 0.5, state))
            previous = state
        previous_round = previous_round if round_ is None else round_
    return found


def round_marks(rounds_and_states, final_state, start) -> list[Mark]:
    """The generator's state at the end of each round only: one Mark per round that drew. Which calls of
    its round a draw falls between is no part of the contract (drawing a round's uniforms before its
    target pass draws the same numbers for the same purpose), only how many each round draws."""
    openings, last = [], None
    for round_, state in rounds_and_states:
        if round_ != last:
            openings.append((round_, state))
            last = round_
    return marks(openings, final_state, start)


def round_draw_difference(expected, got, start, orders, unit: str = "uniforms") -> Difference | None:
    """The first round whose count of draws differs; ``expected`` and ``got``: (rounds_and_states,
    final_state) of each side's compared calls, ``orders`` the learner's calls' places. It sits at the
    learner's first batch of draws that differs in that round, else after the round's calls."""
    total = draw_difference(round_marks(*expected, start), round_marks(*got, start), start, unit)
    if total is None:
        return None
    batch = draw_difference(marks(*expected, start), marks(*got, start, orders=orders), start, unit)
    order = batch.order if batch is not None and batch.round == total.round else float("inf")
    return Difference(total.round, BEFORE, order, total.headline)


def draw_difference(expected: list[Mark], got: list[Mark], start, unit: str = "uniforms") -> Difference | None:
    """The first batch of draws that differs: a different count, or draws in another round."""
    before = start
    for index in range(max(len(expected), len(got))):
        theirs = expected[index] if index < len(expected) else None
        mine = got[index] if index < len(got) else None
        if theirs is not None and mine is not None and theirs.round == mine.round and torch.equal(theirs.state, mine.state):
            before = mine.state
            continue
        if mine is None:
            wanted = count_draws(before, theirs.state)
            return Difference(theirs.round, BEFORE, float("inf"),
                              f"drew no more random numbers in round {theirs.round}, where the contract draws "
                              f"{amount(wanted, unit)} more")
        drawn = count_draws(before, mine.state)
        wanted = 0 if theirs is None or theirs.round != mine.round else count_draws(before, theirs.state)
        return Difference(mine.round, BEFORE, mine.order,
                          f"drew {amount(drawn, unit)} in round {mine.round} where the contract draws "
                          f"{amount(wanted, unit)}")
    return None


def amount(count: int | None, unit: str) -> str:
    if count is None:
        return "random numbers other than float64 uniforms"
    return f"{count} {unit[:-1] if count == 1 else unit}"


# A learner's function that raised ---------------------------------------------------------------------

def lead_with_difference(failure: GradingFailure, function_name: str, difference: Difference | None) -> GradingFailure:
    """The failure of a learner's function that raised, led by the first difference found in what it did
    before raising (the exception is often that difference's symptom); unchanged when there is none."""
    if difference is None:
        return failure
    return GradingFailure(f"{function_name} {difference.headline}; everything before was right. "
                          f"Then it raised:\n{failure}", getattr(failure, "detail", None))


def call_mismatch(mine, theirs, shown, model: str = "", stamps=None) -> Difference | None:
    """The first of the learner's calls (what it made before raising) that is not the contract's call at
    that place, the calls that change nothing left out on both sides; ``shown(call)`` puts one in words.
    With several models: ``model`` names this one, and ``stamps`` (its recorder's) place the difference
    among all the learner's calls, so that ``earliest`` picks the one it made first."""
    kept = [s for c, s in zip(mine, stamps) if not changes_nothing(c)] if stamps is not None else None
    mine, theirs = compared(mine), compared(theirs)
    on = f" on the {model}" if model else ""
    index = next((i for i, (want, have) in enumerate(zip(theirs, mine)) if want != have), None)
    if index is None and len(mine) > len(theirs):
        index, headline = len(theirs), f"made call {len(theirs)}{on}, {shown(mine[len(theirs)])}, after the contract's last call"
    elif index is None:
        return None
    else:
        headline = f"made call {index}{on}, {shown(mine[index])}, where the contract makes {shown(theirs[index])}"
    return Difference(0, BEFORE, index if kept is None else kept[index], headline)
