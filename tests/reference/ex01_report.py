"""Exercise 01-speculative-step: what a learner sees when their tokens or draws are wrong.

The report shows the case (p, q, draft, the replayed stream), the learner's tokens and draws
beside the reference's, and a per-position table of the reference's reasoning with the first
divergence marked.
"""

from __future__ import annotations

import numpy as np

from tests.reference.compare import first_difference
from tests.reference.ex01_reference import Trace


def fmt(value: float) -> str:
    return f"{value:.6g}"


def fmt_row(row) -> str:
    return "[" + ", ".join(fmt(v) for v in np.asarray(row, dtype=float)) + "]"


def describe_case(p, q, draft, stream, max_rows: int = 8) -> str:
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    lines = ["The case:"]
    for name, rows in (("p (target)", p), ("q (draft) ", q.reshape(len(draft), p.shape[1]))):
        shown = [fmt_row(r) for r in rows[:max_rows]]
        more = f" ... ({len(rows)} rows)" if len(rows) > max_rows else ""
        if p.shape[1] > 12:
            shown = [f"<row of {p.shape[1]} probabilities>" for _ in rows[:max_rows]]
        lines.append(f"  {name} = [" + (",\n" + " " * 17).join(shown) + "]" + more)
    lines.append(f"  draft      = {[int(t) for t in draft]}")
    lines.append(f"  stream     = {[float(u) for u in stream]}")
    return "\n".join(lines)


def divergence_index(expected: list[int], got) -> int | None:
    """Like first_difference, but anything other than a list or tuple differs at once."""
    return first_difference(expected, list(got)) if isinstance(got, (list, tuple)) else 0


def reasoning_table(trace: Trace, learner_tokens) -> str:
    learner = list(learner_tokens) if isinstance(learner_tokens, (list, tuple)) else []
    first = divergence_index(trace.tokens, learner_tokens)
    rows = [f"  {'out':>3}  {'pos':>3}  {'drafted':>7}  {'u':>10}  {'p/q':>10}  {'reference':<46} {'ref':>4}  {'yours':>5}"]
    out = 0
    for event in trace.events:
        if event.kind == "reject":
            reasoning = f"u >= p/q: reject token {event.token}"
            rows.append(f"  {'':>3}  {event.position:>3}  {event.token:>7}  {fmt(event.u):>10}  {fmt(event.ratio):>10}  {reasoning:<46}")
            continue
        yours = str(learner[out]) if out < len(learner) else "-"
        mark = "  <-- first difference" if out == first else ""
        if event.kind == "accept":
            drafted, ratio, reasoning = str(event.token), fmt(event.ratio), "u < p/q: accept"
        else:
            drafted, ratio = "", ""
            reasoning = f"sample {event.source}"
        rows.append(
            f"  {out:>3}  {event.position:>3}  {drafted:>7}  {fmt(event.u):>10}  {ratio:>10}  {reasoning:<46} {event.token:>4}  {yours:>5}{mark}"
        )
        if event.distribution is not None:
            rows.append(f"  {'':>3}  {'':>3}  {'':>7}  {'':>10}  {'':>10}    from {fmt_row(event.distribution)[:60]}")
        out += 1
    for extra in range(out, len(learner)):
        mark = "  <-- first difference" if extra == first else ""
        rows.append(f"  {extra:>3}  {'':>3}  {'':>7}  {'':>10}  {'':>10}  {'(the reference stopped before this)':<46} {'-':>4}  {learner[extra]!s:>5}{mark}")
    return "\n".join(rows)


def mismatch_report(headline: str, p, q, draft, stream, trace: Trace, tokens, draws: int) -> str:
    return "\n".join(
        [
            headline,
            "",
            describe_case(p, q, draft, stream),
            "",
            f"  yours:     {tokens!r} after {draws} draws",
            f"  expected:  {trace.tokens!r} after {trace.draws} draws",
            "",
            "The reference's reasoning, one row per emitted token (a rejected draft has no output index):",
            reasoning_table(trace, tokens),
        ]
    )
