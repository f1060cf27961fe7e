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
from speckata.grading.position_table import MARK, PositionTable, first_difference, fmt, fmt_apart, fmt_row, plural
from tests.reference.ex01_report import describe_case
from tests.reference.ex14_reference import BlockTrace

TABLE_TITLE = "The reference's reasoning (τ = the largest i with η_i < h_i; draft[:τ] is kept, then one sample):"


def _row(cells, ref="", yours="", mark=False, note="", widths=None) -> str:
    widths = widths or [8] * len(cells)
    line = ("  " + "  ".join(f"{c!s:>{w}}" for c, w in zip(cells, widths)) + f"  {ref!s:>6}  {yours!s:>5}"
            + (f"  {note}" if note else ""))
    return line + "  " + MARK if mark else line.rstrip()


HEADER = ("out", "i", "x_i", "p/q", "p_i", "h_i", "η_i", "η_i < h_i")


def block_table(trace: BlockTrace, learner_tokens) -> PositionTable:
    learner = list(learner_tokens) if isinstance(learner_tokens, (list, tuple)) else []
    first = 0 if not isinstance(learner_tokens, (list, tuple)) else first_difference(trace.tokens, learner)
    gamma = len(trace.etas)
    rows = []  # (cells, ref, yours, mark, note); the cells are laid out once their widths are known
    for i in range(1, gamma + 1):
        kept = i <= trace.tau
        token = trace.events.events[i - 1].token
        yours = (learner[i - 1] if i - 1 < len(learner) else "-") if kept else ""
        eta, stop = fmt_apart(trace.etas[i - 1], trace.stops[i])  # enough digits to show what decided
        cells = (i - 1 if kept else "", i, token, fmt(trace.ratios[i]), fmt(trace.weights[i]), stop, eta,
                 "yes" if trace.etas[i - 1] < trace.stops[i] else "no")
        rows.append((cells, token if kept else "(drop)", yours, kept and first == i - 1, ""))
    sample = trace.events.events[-1]
    out = trace.tau
    sample_row = ((out, "", "", "", "", "", fmt(sample.u), ""), sample.token, learner[out] if out < len(learner) else "-",
                  first == out, f"sample {sample.source}")
    extras = [((extra, "", "", "", "", "", "", ""), "-", learner[extra], extra == first, "(the reference stopped before this)")
              for extra in range(out + 1, len(learner))]
    widths = [max(8, *(len(str(cells[c])) for cells, *_ in rows + [sample_row] + extras)) for c in range(len(HEADER))]
    lines, marked = [_row(HEADER, "ref", "yours", widths=widths)], None
    for cells, ref, yours, mark, note in rows:
        marked = len(lines) if mark else marked
        lines.append(_row(cells, ref, yours, mark, note, widths))
    lines.append(f"  τ = {trace.tau}: keep {trace.tau} of {plural(gamma, 'draft')}")
    marked = len(lines) if sample_row[3] else marked
    lines.append(_row(*sample_row, widths=widths))
    lines.append(" " * 4 + f"from {fmt_row(sample.distribution, limit=12)}")
    for cells, ref, yours, mark, note in extras:
        marked = len(lines) if mark else marked
        lines.append(_row(cells, ref, yours, mark, note, widths))
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
