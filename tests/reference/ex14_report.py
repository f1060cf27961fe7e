"""Exercise 14-block-verification: what a learner sees when their tokens or draws are wrong.

The case and the two results as in exercise 01 (tests/reference/ex01_report.py), then the
reference's reasoning as a table of its own: block verification decides τ only after it has seen
every η, so each row shows position i's weights p_i and h_i, its η_i and whether η_i < h_i, and
whether the draft is kept (i <= τ), not an accept/reject verdict per row. The learner's token
stands beside the reference's and the first difference is marked (a PositionTable, so the CLI
highlights the marked line as it does for every per-position rule).
"""

from __future__ import annotations

from speckata.grading.failure_report import FailureReport, plain_tokens
from speckata.grading.position_table import MARK, PositionTable, first_difference, fmt, fmt_row, plural
from tests.reference.ex01_report import describe_case
from tests.reference.ex14_reference import BlockTrace

TABLE_TITLE = "The reference's reasoning (τ = the largest i with η_i < h_i; draft[:τ] is kept, then one sample):"


def _row(cells, ref="", yours="", mark=False, note="") -> str:
    line = "  " + "  ".join(f"{c!s:>8}" for c in cells) + f"  {ref!s:>6}  {yours!s:>5}" + (f"  {note}" if note else "")
    return line + "  " + MARK if mark else line.rstrip()


def block_table(trace: BlockTrace, learner_tokens) -> PositionTable:
    learner = list(learner_tokens) if isinstance(learner_tokens, (list, tuple)) else []
    first = 0 if not isinstance(learner_tokens, (list, tuple)) else first_difference(trace.tokens, learner)
    lines = [_row(("out", "i", "x_i", "p/q", "p_i", "h_i", "η_i", "η_i < h_i"), "ref", "yours")]
    marked = None
    gamma = len(trace.etas)
    for i in range(1, gamma + 1):
        kept = i <= trace.tau
        out = i - 1 if kept else ""
        token = trace.events.events[i - 1].token
        yours = (learner[i - 1] if i - 1 < len(learner) else "-") if kept else ""
        mark = kept and first == i - 1
        if mark:
            marked = len(lines)
        cells = (out, i, token, fmt(trace.ratios[i]), fmt(trace.weights[i]), fmt(trace.stops[i]), fmt(trace.etas[i - 1]),
                 "yes" if trace.etas[i - 1] < trace.stops[i] else "no")
        lines.append(_row(cells, token if kept else "(drop)", yours, mark))
    lines.append(f"  τ = {trace.tau}: keep {trace.tau} of {plural(gamma, 'draft')}")
    sample = trace.events.events[-1]
    out = trace.tau
    if first == out:
        marked = len(lines)
    yours = learner[out] if out < len(learner) else "-"
    lines.append(_row((out, "", "", "", "", "", fmt(sample.u), ""), sample.token, yours, first == out,
                      f"sample {sample.source}"))
    lines.append(" " * 4 + f"from {fmt_row(sample.distribution, limit=12)}")
    for extra in range(out + 1, len(learner)):
        if extra == first:
            marked = len(lines)
        lines.append(_row((extra, "", "", "", "", "", "", ""), "-", learner[extra], extra == first,
                          "(the reference stopped before this)"))
    return PositionTable(lines, first, marked)


def mismatch_report(headline: str, p, q, draft, stream, trace: BlockTrace, tokens, draws: int) -> FailureReport:
    report = FailureReport(headline, expected=trace.tokens, yours=plain_tokens(tokens))
    report.add("", describe_case(p, q, draft, stream), "",
               f"  yours:     {tokens!r} after {plural(draws, 'draw')}",
               f"  expected:  {trace.tokens!r} after {plural(trace.draws, 'draw')}")
    if draws != trace.draws:
        report.add("")
        report.add_notes([f"every call draws exactly γ + 1 = {trace.draws} numbers: the γ uniforms η_1..η_γ first, "
                          "all of them and in order, then one sample(weights, rng); you drew "
                          f"{plural(draws, 'number')}."])
    report.add("", TABLE_TITLE)
    report.add_table(block_table(trace, tokens))
    return report
