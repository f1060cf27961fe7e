"""Exercise 25-ragged-batch: what a learner sees when their batched decoder goes elsewhere.

The report names the first call (of either model, in round order) that differs from the
contract's and what in it differs (the ids fed, the row lengths it met, a mask row, a position),
then each row's tokens beside the contract's, then the reference's rounds: the round's draft
length, and for every row in it the drafts, how many were accepted and what it emitted.
"""

from __future__ import annotations

from speckata.grading.failure_report import FailureReport
from tests.reference.ex25_reference import BatchTrace

KINDS = {"reset_rows": "reset_rows({})", "crop_rows": "crop_rows({})"}


def shown(call: tuple | None) -> str:
    if call is None:
        return "no call"
    if call[0] == "rows":
        return f"forward_rows(ids={[list(r) for r in call[1]]}, ...) with row_lengths {list(call[2])}"
    if call[0] in KINDS:
        return KINDS[call[0]].format(list(call[1]) if isinstance(call[1], tuple) else call[1])
    return f"{call[0]}{call[1:]!r:.120}"


def rows_difference(expected: tuple, got: tuple) -> str:
    """Which part of two forward_rows calls differs first: ids, lengths, a mask row, a position."""
    if got[2] != expected[2]:
        return f"the rows held {list(got[2])} tokens before it; the contract's rows hold {list(expected[2])} there"
    if got[1] != expected[1]:
        return f"ids {[list(r) for r in got[1]]}; the contract feeds {[list(r) for r in expected[1]]}"
    for b, (mine, theirs) in enumerate(zip(got[3], expected[3])):
        for i, (row_mine, row_theirs) in enumerate(zip(mine, theirs)):
            if row_mine != row_theirs:
                return f"attention_mask row {b}, token {i} = {list(row_mine)}; the contract's is {list(row_theirs)}"
    if got[3] != expected[3]:
        return "an attention_mask of another shape than the contract's (B, n, max(row_lengths) + n)"
    return f"position_ids {[list(r) for r in got[4]]}; the contract's are {[list(r) for r in expected[4]]}"


def call_headline(difference) -> str:
    model, index, expected, got = difference
    if got is None:
        return f"made fewer calls to the {model} than the contract: its {shown(expected[1])} in round {expected[0]} is missing"
    if expected is None:
        return f"made a call to the {model} that the contract does not make: {shown(got[1])} in round {got[0]}"
    number = got[0]
    if got[1][0] == expected[1][0] == "rows":
        return f"fed the {model} (its call {index + 1}, round {number}) {rows_difference(expected[1], got[1])}"
    return f"called the {model} (its call {index + 1}, round {number}) with {shown(got[1])}; the contract calls {shown(expected[1])}"


def rounds_lines(trace: BatchTrace, limit: int = 12) -> list[str]:
    lines = ["The reference's rounds (k: drafts per row; a row leaves the batch when it has max_new_tokens tokens):"]
    for round_ in trace.rounds[:limit]:
        cells = "; ".join(f"row {r.row}: drafts {r.drafted}, accepted {r.accepted}, emits {r.emitted}" for r in round_.rows)
        lines.append(f"  round {round_.number} (k = {round_.k}): {cells}")
    if len(trace.rounds) > limit:
        lines.append(f"  ... {len(trace.rounds) - limit} more rounds")
    return lines


def mismatch_report(headline: str, case: str, trace: BatchTrace, learner_tokens, difference) -> FailureReport:
    report = FailureReport(headline)
    report.add("", case, "")
    if difference is not None:
        report.add(f"First differing call: {call_headline(difference)}.", "")
    rows = learner_tokens if isinstance(learner_tokens, list) and len(learner_tokens) == len(trace.tokens) else None
    for b, expected in enumerate(trace.tokens):
        mine = rows[b] if rows is not None else "?"
        report.add(f"  row {b}: yours {mine}", f"         expected {expected}")
    report.add("", *rounds_lines(trace))
    return report
