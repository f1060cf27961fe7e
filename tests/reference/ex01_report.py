"""Exercise 01-speculative-step: what a learner sees when their tokens or draws are wrong.

The report shows the case (p, q, draft, the replayed stream), the learner's tokens and draws
beside the reference's, a note when the number of draws gives the mistake away, and the
reference's reasoning position by position (speckata.grading.position_table) with the first
difference marked.
"""

from __future__ import annotations

import numpy as np

from speckata.grading.failure_report import FailureReport, plain_tokens
from speckata.grading.position_table import fmt_row, matrix, plural, reasoning_table
from speckata.grading.trace import StepTrace
from tests.shared.as_given import as_given

TABLE_TITLE = "The reference's reasoning, one row per emitted token (a rejected draft has no output index):"


def describe_case(p, q, draft, stream, max_rows: int = 8) -> str:
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    lines = ["The case:"]
    for name, rows in (("p (target)", p), ("q (draft) ", q.reshape(len(draft), p.shape[1]))):
        shown = [fmt_row(r) for r in rows[:max_rows]]
        if p.shape[1] > 12:
            shown = [f"<row of {p.shape[1]} probabilities>" for _ in rows[:max_rows]]
        more = f" ... ({len(rows)} rows)" if len(rows) > max_rows else ""
        lines.append(matrix(f"  {name} = ", shown, more))
    lines.append(f"  draft      = {[int(t) for t in draft]}")
    lines.append(f"  stream     = {[float(u) for u in stream]}")
    return "\n".join(lines)


def later_case(p, q, draft, stream):
    """``describe_case`` of these inputs as they are now, written only when a failure needs it
    (formatting every passing case would cost more than the calls themselves)."""
    p, q, draft, stream = as_given(p), as_given(q), list(draft), list(stream)
    return lambda: describe_case(p, q, draft, stream)


def draw_count_note(draws: int, expected: int, tokens) -> list[str]:
    """What a wrong number of rng draws says about the code that made them."""
    emitted = len(tokens) if isinstance(tokens, (list, tuple)) else 0
    if draws < expected and draws < emitted:  # every emitted token takes a draw: its test or its sample
        return [(f"you drew {plural(draws, 'number')} from rng, the reference drew {expected}: is another random "
                 f"source (np.random, random) in use? Each of your {plural(emitted, 'token')} needs one draw of its "
                 "own from rng (its accept test or its sample).")]
    if draws > expected:
        return [(f"you drew {plural(draws, 'number')} from rng, the reference drew {expected}: the contract is one "
                 "rng.random() per accept test and one per sample (sample(weights, rng) draws it), nothing else.")]
    return []


def mismatch_report(headline: str, p, q, draft, stream, trace: StepTrace, tokens, draws: int) -> FailureReport:
    listed = list(tokens) if isinstance(tokens, (list, tuple)) else None
    report = FailureReport(headline, expected=trace.tokens, yours=plain_tokens(tokens))
    report.add("", describe_case(p, q, draft, stream), "",
               f"  yours:     {tokens!r} after {plural(draws, 'draw')}",
               f"  expected:  {trace.tokens!r} after {plural(trace.draws, 'draw')}")
    notes = draw_count_note(draws, trace.draws, tokens)
    if notes:
        report.add("")
        report.add_notes(notes)
    report.add("", TABLE_TITLE)
    report.add_table(reasoning_table(trace, listed))
    return report
