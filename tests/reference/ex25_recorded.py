"""Exercise 25-ragged-batch: a recorder's ragged-batch calls as the reference records them, each with its round.

A round ends with the draft's crop_rows (the contract crops the target, then the draft); every
call of either model after the previous round's end belongs to the next round. reset_rows is compared by its batch size only (what the rows held
before depends on earlier cases run on the same models).
"""

from __future__ import annotations

from speckata.models.recording import nested_ints

nested = nested_ints


def comparable(call: tuple) -> tuple:
    return call[:2] if call[0] == "reset_rows" else call


def learner_rounds(target, draft) -> dict:
    """{model: [(round, call, order), ...]} from two RecordingModels, the rounds counted as the reference
    counts them; order: the call's place among all the learner's calls."""
    stamped = sorted([(s, "target", c) for s, c in zip(target.stamps, target.calls)]
                     + [(s, "draft", c) for s, c in zip(draft.stamps, draft.calls)])
    calls, number = {"target": [], "draft": []}, 1
    draft_crops = 0
    for order, (_, model, call) in enumerate(stamped):
        calls[model].append((number, comparable(call), order))
        if model == "draft" and call[0] == "crop_rows":
            draft_crops += 1
            number = draft_crops + 1
    return calls


def first_call_difference(expected: dict, got: dict):
    """(model, index, expected (round, call) or None, got (round, call) or None) of the earliest difference."""
    found = []
    for model in ("target", "draft"):
        mine = got[model]
        theirs = [(n, comparable(c)) for n, c in expected[model]]
        for index in range(max(len(mine), len(theirs))):
            a = theirs[index] if index < len(theirs) else None
            b = mine[index] if index < len(mine) else None
            if a is None or b is None or a[1] != b[1]:
                found.append((min(x[0] for x in (a, b) if x), b[2] if b else 10**9, model, index, a, b))
                break
    if not found:
        return None
    _, _, model, index, a, b = min(found, key=lambda f: f[:2])  # the earliest round, then the learner's order
    return model, index, a, b
