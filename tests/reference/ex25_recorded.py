"""Exercise 25-ragged-batch: a recorder's ragged-batch calls as the reference records them, each with its round.

A round ends with the target's crop_rows; every call of either model after the previous round's
end belongs to the next round. reset_rows is compared by its batch size only (what the rows held
before depends on earlier cases run on the same models).
"""

from __future__ import annotations

from speckata.models.recording import nested_ints

nested = nested_ints


def comparable(call: tuple) -> tuple:
    return call[:2] if call[0] == "reset_rows" else call


def learner_rounds(target, draft) -> dict:
    """{model: [(round, call), ...]} from two RecordingModels, the rounds counted as the reference counts them."""
    stamped = sorted([(s, "target", c) for s, c in zip(target.stamps, target.calls)]
                     + [(s, "draft", c) for s, c in zip(draft.stamps, draft.calls)])
    calls, number = {"target": [], "draft": []}, 1
    target_crops = 0
    for _, model, call in stamped:
        if call[0] not in ("reset_rows", "rows", "crop_rows"):
            calls[model].append((number, call))
            continue
        calls[model].append((number, comparable(call)))
        if model == "target" and call[0] == "crop_rows":
            target_crops += 1
            number = target_crops + 1
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
                found.append((min(x[0] for x in (a, b) if x), model, index, a, b))
                break
    if not found:
        return None
    _, model, index, a, b = min(found, key=lambda f: (f[0], f[1] != "draft"))  # a round drafts before it verifies
    return model, index, a, b
