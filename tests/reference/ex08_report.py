"""Exercise 08-batched-verifier: what a learner sees when a row comes out wrong.

The batch's shape and seed, then the first row that differs: its inputs (when they are small),
its uniforms, the learner's row beside the expected one, notes on the usual suspects (a row that
keeps drafts after its first rejection, every row cut to the batch minimum, padding other than -1),
and exercise 01's reasoning for that row, position by position (speckata.grading.position_table).
"""

from __future__ import annotations

from speckata.grading.failure_report import FailureReport
from speckata.grading.position_table import fmt, fmt_row, matrix, plural, reasoning_table
from speckata.grading.trace import REJECT
from tests.reference.ex08_reference import PAD, ExpectedRow, unpadded

SHOWN_COUNTS = 16  # per-row counts listed in a note before "..."


def describe_batch(target_probs, draft_probs, draft_tokens, seed: int) -> str:
    batch, gamma = draft_tokens.shape
    return (
        f"The batch: B = {batch}, γ = {gamma}, V = {target_probs.shape[-1]}, {target_probs.dtype}, on "
        f"{target_probs.device}; generator = torch.Generator().manual_seed({seed})"
    )


def counts_text(counts: list[int]) -> str:
    shown = ", ".join(str(k) for k in counts[:SHOWN_COUNTS])
    return f"[{shown}, ... ({len(counts)} rows)]" if len(counts) > SHOWN_COUNTS else f"[{shown}]"


def kept_after_rejection(expected: list[ExpectedRow], learner_k: list[int], first: int) -> str | None:
    """A row (row ``first`` if it is one) that counts more accepted drafts than its prefix holds."""
    for b in [first] + [b for b in range(len(expected)) if b != first]:
        row, k = expected[b], learner_k[b]
        i = row.num_accepted  # the first rejected draft, when the row has one
        if not (i < len(row.accepts) and k > i) or not (row.comparable or b == first):
            continue
        rejection = next(event for event in row.trace.events if event.kind == REJECT)
        later = [j for j in range(i + 1, len(row.accepts)) if row.accepts[j]]
        kept = f"kept draft {later[0]} after rejecting draft {i}" if later else f"kept {plural(k, 'draft')} after rejecting draft {i}"
        summed = " Yours counts every accept, as a sum does." if k == i + len(later) else ""
        return (
            f"row {b} {kept}: u[{b}, {i}] = {fmt(rejection.u)} >= p/q = {fmt(rejection.ratio)} rejects draft {i}, "
            f"and a row's accepted run ends at its first rejection, so its num_accepted is {i}, not {k}.{summed} "
            "Count only the accepts before the first rejection (a prefix: cumprod along γ, then sum)."
        )
    return None


def usual_suspects(expected: list[ExpectedRow], learner_tokens: list[list[int]], learner_k: list[int], first: int) -> list[str]:
    notes = []
    kept = kept_after_rejection(expected, learner_k, first)
    if kept:
        notes.append(kept)
    expected_k = [row.num_accepted for row in expected]
    if len(set(learner_k)) == 1 and learner_k[0] == min(expected_k) and len(set(expected_k)) > 1:
        notes.append(
            f"Every row of yours accepted {plural(learner_k[0], 'draft')}, the batch's minimum; the rows accept "
            f"{counts_text(expected_k)} here, row by row. Each row must keep its own accepted prefix."
        )
    # Padding: what a row holds after its own last token (by its own num_accepted).
    padding = {token for row, k in zip(learner_tokens, learner_k) if 0 <= k < len(row) for token in row[k + 1:]}
    if padding - {PAD}:
        notes.append(f"After a row's last token the padding must be {PAD}; yours holds {sorted(padding - {PAD})} there.")
    return notes


def row_report(headline: str, case: str, index: int, target_probs, draft_probs, draft_tokens,
               expected: list[ExpectedRow], learner_tokens: list[list[int]], learner_k: list[int], differing: int) -> FailureReport:
    row = expected[index]
    gamma = draft_tokens.shape[1]
    report = FailureReport(headline, expected=row.tokens, yours=learner_tokens[index])
    report.add("", case, "", f"Row {index} is the first that differs ({differing} of {len(expected)} rows differ):")
    if target_probs.shape[-1] <= 12:
        report.add(matrix("  p = target_probs[b] = ", [fmt_row(r) for r in target_probs[index].tolist()]))
        report.add(matrix("  q = draft_probs[b]  = ", [fmt_row(r) for r in draft_probs[index].tolist()] or ["(γ = 0: no rows)"]))
    report.add(f"  draft_tokens[b] = {draft_tokens[index].tolist()}",
               f"  exercise 01's stream for this row (u[b, :k+1], or u[b, :γ] when all are accepted, then v[b]): "
               f"[{', '.join(fmt(x) for x in row.stream)}]", "",
               f"  yours:     tokens {learner_tokens[index]}, num_accepted {learner_k[index]}",
               f"  expected:  tokens {row.tokens}, num_accepted {row.num_accepted}")
    notes = usual_suspects(expected, learner_tokens, learner_k, index)
    if notes:
        report.add("")
        report.add_notes(notes)
    report.add("", f"Exercise 01's reasoning for row {index} (γ = {gamma}), one line per emitted token:")
    report.add_table(reasoning_table(row.trace, unpadded(learner_tokens[index])))
    return report
