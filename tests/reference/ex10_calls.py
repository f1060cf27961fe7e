"""Exercise 10-speculative-generate: every model call the learner made, beside the contract's.

A call is what changes a model's cache: forward_new(ids) with the cache length it met, or a crop
that shortens the cache. Crops to the cache's own length and resets of an empty cache change
nothing and are shown but not compared, as are the resets before the first forward call (the
contract's start). Each model's compared calls are matched one for one with the contract's, and
the first difference in the order the learner made its calls is the one reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.reference.compare import first_difference


@dataclass(frozen=True)
class Call:
    model: str  # "target" or "draft"
    kind: str  # "forward", "crop", "reset"
    value: tuple[int, ...] | int | None  # the ids fed, or the length cropped to
    cached: int  # tokens the cache held before the call
    round: int  # from 1, as the exercise text counts rounds
    compared: bool = True  # False: the call changes nothing (shown, not compared)

    def key(self):
        return self.kind, self.value, self.cached

    def shown(self, limit: int = 8) -> str:
        if self.kind == "forward":
            return f"forward_new({short(self.value, limit)})"
        return f"crop({self.value})" if self.kind == "crop" else "reset()"


def short(ids, limit: int = 12) -> str:
    ids = list(ids)
    if len(ids) <= limit:
        return str(ids)
    return f"[{', '.join(map(str, ids[:4]))}, ... {len(ids) - 8} more ..., {', '.join(map(str, ids[-4:]))}]"


def learner_calls(target, draft, draft_crops_open_a_round: bool = False) -> list[Call]:
    """Both RecordingModels' calls in the order the learner made them, each with the round it fell in:
    a round ends with its target forward call and the crops after it (exercise 12 crops the draft
    at the start of a round instead: draft_crops_open_a_round)."""
    stamped = sorted([(stamp, "target", call) for stamp, call in zip(target.stamps, target.calls)]
                     + [(stamp, "draft", call) for stamp, call in zip(draft.stamps, draft.calls)])
    calls, verified = [], 0
    for _, model, call in stamped:
        kind, cached = call[0], call[-1]
        value = None if kind == "reset" else call[1]
        if kind == "forward":
            number = verified + 1
            verified += model == "target"
            changes = True
        else:
            number = verified + 1 if draft_crops_open_a_round and model == "draft" else max(verified, 1)
            changes = (value != cached if kind == "crop" else cached > 0) and any(c.kind == "forward" for c in calls)
        calls.append(Call(model, kind, value, cached, number, changes))
    return calls


@dataclass
class CallDifference:
    model: str
    index: int  # among that model's compared calls
    expected: Call | None
    got: Call | None
    row: int  # where in the learner's calls the difference shows (len(calls) when they ran out)


def compared(calls: list[Call], model: str) -> list[Call]:
    return [c for c in calls if c.compared and c.model == model]


def first_call_difference(expected: list[Call], got: list[Call]) -> CallDifference | None:
    found = []
    for model in ("target", "draft"):
        mine, theirs = compared(got, model), compared(expected, model)
        index = first_difference([c.key() for c in theirs], [c.key() for c in mine])
        if index is not None:
            mine_call = mine[index] if index < len(mine) else None
            row = got.index(mine_call) if mine_call else len(got)
            found.append(CallDifference(model, index, theirs[index] if index < len(theirs) else None, mine_call, row))
    return min(found, key=lambda d: (d.row, d.expected.round if d.expected else 10**9), default=None)


def difference_headline(d: CallDifference, calls: list[Call]) -> str:
    """What the learner did at the first differing call, in words, and in which round (calls: all of theirs)."""
    exp, got = d.expected, d.got
    number = got.round if got else exp.round
    if exp is None:
        return f"made a call to the {d.model} that the contract does not make ({got.shown()}) in round {number}"
    if exp.kind == "crop" and (got is None or got.kind != "crop"):
        idle = [c for c in calls if c.kind == "crop" and not c.compared and c.model == d.model and c.round == exp.round]
        if idle:
            return (f"cropped the {d.model}'s cache to {idle[0].value} tokens in round {exp.round}, which keeps all "
                    f"{idle[0].cached}, the newest token included; the contract crops it to {exp.value} = len(sequence) - 1")
        return (f"did not crop the {d.model}'s cache in round {exp.round}: the contract crops it from {exp.cached} to "
                f"{exp.value} tokens (len(sequence) - 1)")
    if got is None:
        return f"made fewer calls to the {d.model} than the contract: none where it calls {exp.shown()} in round {exp.round}"
    if got.round < exp.round and got.kind == exp.kind == "forward":
        return (f"made one call too many to the {d.model} in round {got.round}: {got.shown()} (the contract's next "
                f"{d.model} call, {exp.shown()}, comes in round {exp.round})")
    if got.round > exp.round and got.kind == exp.kind == "forward":
        return (f"made too few calls to the {d.model} in round {exp.round}: the contract's {exp.shown()} with "
                f"{exp.cached} tokens cached is missing")
    if got.kind == "crop":
        wanted = f"crops it to {exp.value}" if exp.kind == "crop" else "does not crop it there"
        return f"cropped the {d.model}'s cache from {got.cached} to {got.value} tokens in round {number}; the contract {wanted}"
    if exp.kind == "forward" and exp.value == got.value:
        return (f"fed the {d.model} {got.shown()} with {got.cached} tokens cached in round {number}; the contract's "
                f"{d.model} holds {exp.cached} there")
    return f"fed the {d.model} something else than the contract prescribes in round {number}"


def cell(call: Call | None) -> tuple[str, str]:
    return ("-", "") if call is None else (call.shown(), str(call.cached))


def call_log(expected: list[Call], got: list[Call], difference: CallDifference | None, raised: bool = False,
             before: int = 8, after: int = 3) -> str:
    """The learner's calls in order, each beside the contract's call it is matched with."""
    counts, rows, mark = {"target": 0, "draft": 0}, [], None
    for number, call in enumerate(got):
        if difference is not None and number == difference.row:
            mark = len(rows)
        if call.kind == "reset" and call.round == 1 and not call.compared:
            continue  # the resets at the start, as the contract makes them
        counterpart = None
        if call.compared:
            theirs = compared(expected, call.model)
            counterpart = theirs[counts[call.model]] if counts[call.model] < len(theirs) else None
            counts[call.model] += 1
        rows.append((call.round, call.model, *cell(call), *(cell(counterpart) if call.compared else ("(changes nothing: not compared)", ""))))
    if difference is not None and difference.got is None:  # the contract's call the learner never made
        mark = len(rows)
        rows.append((difference.expected.round, difference.model, "-", "", *cell(difference.expected)))
    elif raised:
        following = sorted((c for m in ("target", "draft") for c in compared(expected, m)[counts[m]:][:1]), key=expected.index)
        if following:
            rows.append((following[0].round, following[0].model, "(your code raised)", "", *cell(following[0])))
    keep = set(range(max(0, (mark or 0) - before), (mark or 0) + after + 1))
    if raised:  # the calls just before the exception, and the contract's next call
        keep |= set(range(len(rows) - after, len(rows)))
    titles = ("round", "model", "your call", "cached", "the contract's call", "cached")
    shown = [titles] + [tuple(map(str, rows[i])) for i in sorted(keep) if 0 <= i < len(rows)]
    widths = [max(len(r[i]) for r in shown) for i in range(6)]
    lines, previous = [], -1
    for index in sorted(i for i in keep if 0 <= i < len(rows)):
        if index > previous + 1:
            lines.append(f"  ... {index - previous - 1} calls")
        row = tuple(map(str, rows[index]))
        text = "  " + "  ".join(f"{v:{'>' if i in (0, 3, 5) else '<'}{w}}" for i, (v, w) in enumerate(zip(row, widths)))
        lines.append(text.rstrip() + ("  <-- first difference" if index == mark else ""))
        previous = index
    if previous < len(rows) - 1:
        lines.append(f"  ... {len(rows) - previous - 1} more calls")
    header = "  " + "  ".join(f"{v:{'>' if i in (0, 3, 5) else '<'}{w}}" for i, (v, w) in enumerate(zip(titles, widths)))
    lines.insert(0, header.rstrip())
    return "\n".join(lines)
