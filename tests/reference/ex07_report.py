"""Exercise 07-torch-step: what a learner sees when their tokens or generator state are wrong.

The case (the inputs and the seed), the learner's result beside the reference's, and a table of
the reference's decisions: per position the uniform, p/q and the verdict, then the distribution
the last token was drawn from, with the first difference marked.
"""

from __future__ import annotations

import torch

from tests.reference.compare import first_difference
from tests.reference.ex07_reference import StepTrace


def fmt(value: float) -> str:
    return f"{value:.6g}"


def fmt_row(row, limit: int = 12) -> str:
    values = [float(v) for v in row]
    if len(values) > limit:
        return f"<row of {len(values)} probabilities>"
    return "[" + ", ".join(fmt(v) for v in values) + "]"


def describe_case(draft_probs, target_probs, draft_tokens, seed: int, max_rows: int = 8) -> str:
    lines = [f"The case ({target_probs.dtype}, on {target_probs.device}):"]
    for name, rows in (("target_probs (p)", target_probs), ("draft_probs  (q)", draft_probs)):
        shown = [fmt_row(r) for r in rows[:max_rows]]
        more = f" ... ({rows.shape[0]} rows)" if rows.shape[0] > max_rows else ""
        lines.append(f"  {name} = [" + (",\n" + " " * 23).join(shown) + "]" + more)
    lines.append(f"  draft_tokens     = {draft_tokens.tolist()}")
    lines.append(f"  generator        = torch.Generator().manual_seed({seed})")
    return "\n".join(lines)


def as_list(tokens):
    return tokens.tolist() if isinstance(tokens, torch.Tensor) else None


def reasoning_table(trace: StepTrace, learner_tokens) -> str:
    learner = as_list(learner_tokens) or []
    got = as_list(learner_tokens)
    first = 0 if got is None else first_difference(trace.tokens, got)
    rows = [f"  {'out':>3}  {'pos':>3}  {'drafted':>7}  {'u':>10}  {'p/q':>10}  {'reference':<40} {'ref':>4}  {'yours':>5}"]
    out = 0

    def emit(pos: str, drafted: str, u: str, ratio: str, reasoning: str, token: int) -> None:
        nonlocal out
        yours = str(learner[out]) if out < len(learner) else "-"
        mark = "  <-- first difference" if out == first else ""
        rows.append(f"  {out:>3}  {pos:>3}  {drafted:>7}  {u:>10}  {ratio:>10}  {reasoning:<40} {token:>4}  {yours:>5}{mark}")
        out += 1

    for d in trace.decisions:
        if d.accepted:
            emit(str(d.position), str(d.token), fmt(d.u), fmt(d.ratio), "u < min(1, p/q): accept", d.token)
        else:
            reasoning = f"u >= min(1, p/q): reject token {d.token}"
            rows.append(f"  {'':>3}  {d.position:>3}  {d.token:>7}  {fmt(d.u):>10}  {fmt(d.ratio):>10}  {reasoning:<40}")
    pos = str(trace.decisions[-1].position if trace.sample_kind == "replacement" else len(trace.decisions))
    emit(pos, "", "", "", f"multinomial: {trace.sample_kind}", trace.tokens[-1])
    rows.append(f"  {'':>3}  {'':>3}  {'':>7}  {'':>10}  {'':>10}    from {trace.sample_source}")
    rows.append(f"  {'':>3}  {'':>3}  {'':>7}  {'':>10}  {'':>10}    = {fmt_row(trace.sample_distribution)}")
    for extra in range(out, len(learner)):
        mark = "  <-- first difference" if extra == first else ""
        rows.append(f"  {extra:>3}  {'':>3}  {'':>7}  {'':>10}  {'':>10}  {'(the reference stopped before this)':<40} {'-':>4}  {learner[extra]!s:>5}{mark}")
    return "\n".join(rows)


def mismatch_report(headline: str, case: str, trace: StepTrace, result) -> str:
    return "\n".join(
        [
            headline,
            "",
            case,
            "",
            f"  yours:     {result!r}",
            f"  expected:  ({torch.tensor(trace.tokens)!r}, {trace.num_accepted})",
            "",
            "The reference's reasoning, one row per emitted token (a rejected draft has no output index):",
            reasoning_table(trace, result[0] if isinstance(result, tuple) and result else None),
        ]
    )
