"""Exercise 16-top-k-drafts: what a learner sees when their token or draws are wrong.

The case (p, the candidates, q, the replayed stream), the learner's token and draws beside the
reference's, a note when the number of draws gives the mistake away, and the reference's
reasoning one tried candidate per row ("pos" is the candidate's rank, "chance" the chance it is
accepted: left(x) / Σ left, not p/q, which this rule never uses), with the first difference marked.
"""

from __future__ import annotations

from speckata.grading.failure_report import FailureReport, plain_tokens
from speckata.grading.position_table import fmt_row, plural, reasoning_table
from speckata.grading.trace import StepTrace
from tests.reference.ex01_report import draw_count_note

TABLE_TITLE = ("The reference's reasoning, one row per tried candidate (pos: its rank; chance: the chance to\n"
               "accept it, left(x) / Σ left, where left is p without the rejected candidates; q plays no part):")


def describe_case(p, candidates, q, stream) -> str:
    wide = len(p) > 12
    return "\n".join([
        "The case:",
        f"  p (target)  = {fmt_row(p, limit=12 if wide else None)}",
        f"  candidates  = {[int(c) for c in candidates]}",
        f"  q (draft)   = {fmt_row(q, limit=12 if wide else None)}",
        f"  stream      = {[float(u) for u in stream]}",
    ])


def mismatch_report(headline: str, p, candidates, q, stream, trace: StepTrace, token, draws: int) -> FailureReport:
    yours = [token] if type(token) is int else token
    report = FailureReport(headline, expected=trace.tokens, yours=plain_tokens(yours))
    report.add("", describe_case(p, candidates, q, stream), "",
               f"  yours:     {token!r} after {plural(draws, 'draw')}",
               f"  expected:  {trace.tokens[0]!r} after {plural(trace.draws, 'draw')}")
    notes = draw_count_note(draws, trace.draws, [token])
    if notes:
        report.add("")
        report.add_notes(notes)
    report.add("", TABLE_TITLE)
    report.add_table(reasoning_table(trace, [token], rule="left(x)/Σleft", ratio_heading="chance"))
    return report
