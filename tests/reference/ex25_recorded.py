"""Exercises 25-ragged-batch and 27: a recorder's ragged-batch calls as the reference records them, each with its round.

A round's calls are its draft passes and its target pass, then the crops after that target pass
(the contract crops the target, then the draft): a call's round is 1 + the target passes before it,
a crop's is that of the target pass it follows. reset_rows is compared by its batch size only
(what the rows held before depends on earlier cases run on the same models). Calls that change
nothing (speckata.grading.events.changes_nothing: a crop_rows to the lengths held) are not
compared, on either side. The comparison itself is speckata.grading.events': the first differing
call, batch of draws or round's tokens, whichever comes first.
"""

from __future__ import annotations

from speckata.grading.events import BEFORE, CLOSING, TOKENS, Difference, changes_nothing, marks
from speckata.models.ragged import PAD
from speckata.models.recording import nested_ints

nested = nested_ints


def comparable(call: tuple) -> tuple:
    return call[:2] if call[0] == "reset_rows" else call


def round_of(call: tuple, passes: int) -> int:
    return max(passes, 1) if call[0] in ("crop_rows", "reset_rows") else passes + 1


def merged(target, draft) -> list[tuple]:
    """(model, call, state before it) of both recorders, in the order the calls were made."""
    stamped = sorted([(s, "target", c, i) for i, (s, c) in enumerate(zip(target.stamps, target.calls))]
                     + [(s, "draft", c, i) for i, (s, c) in enumerate(zip(draft.stamps, draft.calls))])
    states = {"target": target.states, "draft": draft.states}
    return [(model, call, states[model][i] if i < len(states[model]) else None) for _, model, call, i in stamped]


def learner_rounds(target, draft) -> dict:
    """{model: [(round, call, order), ...]} from two RecordingModels, the compared calls only, the rounds
    counted as the reference counts them; order: the call's place among all the learner's calls."""
    calls, passes = {"target": [], "draft": []}, 0
    for order, (model, call, _) in enumerate(merged(target, draft)):
        if not changes_nothing(call):
            calls[model].append((round_of(call, passes), comparable(call), order))
        passes += model == "target" and call[0] == "rows"
    return calls


def learner_marks(target, draft, start, final) -> list:
    """The generator's changes between the compared calls of two recorders given a generator."""
    entries, passes = [], 0
    for model, call, state in merged(target, draft):
        if not changes_nothing(call):
            entries.append((round_of(call, passes), state))
        passes += model == "target" and call[0] == "rows"
    return marks(entries, final, start)


def first_call_difference(expected: dict, got: dict, complete: bool = True):
    """(model, index, expected (round, call) or None, got (round, call, order) or None) of the earliest
    difference; complete=False: the learner's calls stopped early (it raised), so running out is none."""
    found = []
    for model in ("target", "draft"):
        mine = got[model]
        theirs = [(n, comparable(c)) for n, c in expected[model] if not changes_nothing(c)]
        for index in range(max(len(mine), len(theirs))):
            a = theirs[index] if index < len(theirs) else None
            b = mine[index] if index < len(mine) else None
            if b is None and not complete:
                break
            if a is None or b is None or a[1] != b[1]:
                found.append((min(x[0] for x in (a, b) if x), b[2] if b else 10**9, model, index, a, b))
                break
    if not found:
        return None
    _, _, model, index, a, b = min(found, key=lambda f: f[:2])  # the earliest round, then the learner's order
    return model, index, a, b


def as_difference(difference, headline: str) -> Difference | None:
    """A call difference (first_call_difference's) placed in the run: a crop_rows ends its round."""
    if difference is None:
        return None
    _, _, expected, got = difference
    round_ = min(x[0] for x in (expected, got) if x)
    kind = (got or expected)[1][0]
    return Difference(round_, CLOSING if kind == "crop_rows" else BEFORE, got[2] if got else float("inf"), headline)


def sequences_after_rounds(target, draft, prompts, tokens) -> list[list[list[int]]]:
    """Per row, the learner's sequence after each round (index 0: the prompt), read from its calls: the
    first pass of round r + 1 that feeds the row leaves that model holding the whole sequence (the
    draft's; the target's when the round drafts nothing); after the row's last round, prompt + its
    returned tokens. A row's reading stops where it disagrees with the returned tokens (then a feed is
    wrong, not the tokens)."""
    final = [list(p) + list(t) for p, t in zip(prompts, tokens)]
    held, after, stopped, passes = {"target": [], "draft": []}, [[list(p)] for p in prompts], set(), 0
    for model, call, _ in merged(target, draft):
        if call[0] == "reset_rows":
            held[model] = [[] for _ in range(call[1])]
        elif call[0] == "crop_rows":
            held[model] = [row[:n] for row, n in zip(held[model], call[1])]
        elif call[0] == "rows":
            for b, ids in enumerate(call[1][: len(held[model])]):
                new = [t for t in ids if t != PAD]
                held[model][b] = held[model][b] + new
                if new and b < len(after) and b not in stopped and len(after[b]) == passes:
                    sequence = held[model][b]
                    if sequence == final[b][: len(sequence)]:
                        after[b].append(sequence)
                    else:
                        stopped.add(b)
            passes += model == "target"
    return [rows + ([] if b in stopped else [final[b]]) for b, rows in enumerate(after)]


def tokens_difference(trace, tokens, prompts, target, draft) -> Difference | None:
    """The earliest round in which a row emitted other tokens than the reference's (read from the calls,
    sequences_after_rounds)."""
    if not isinstance(tokens, list) or len(tokens) != len(trace.tokens) or not all(isinstance(t, list) for t in tokens):
        return None
    after = sequences_after_rounds(target, draft, prompts, tokens)
    for round_ in trace.rounds:
        for row in round_.rows:
            n, sequences = round_.number, after[row.row]
            if n >= len(sequences):
                continue
            mine = sequences[n][len(sequences[n - 1]):]
            if mine != row.emitted:
                return Difference(n, TOKENS, 0, f"emitted {mine} for row {row.row} in round {n}; the contract's row "
                                                f"{row.row} emits {row.emitted} there ({row.accepted} of its drafts "
                                                f"{row.drafted} accepted, then one more token)")
    return None
