"""Exercise 08-batched-verifier: what a learner sees when a row comes out wrong.

The batch's shape and seed, then the first row that differs: its inputs (when they are small),
its uniforms, the learner's row beside the expected one, a note on the usual suspects (cutting
every row to the batch minimum, padding with something else than -1), and exercise 01's
reasoning for that row, position by position.
"""

from __future__ import annotations

from tests.reference.ex01_report import fmt, fmt_row, reasoning_table
from tests.reference.ex08_reference import PAD, ExpectedRow, unpadded


def describe_batch(target_probs, draft_probs, draft_tokens, seed: int) -> str:
    batch, gamma = draft_tokens.shape
    return (
        f"The batch: B = {batch}, γ = {gamma}, V = {target_probs.shape[-1]}, {target_probs.dtype}, on "
        f"{target_probs.device}; generator = torch.Generator().manual_seed({seed})"
    )


def usual_suspects(expected: list[ExpectedRow], learner_tokens: list[list[int]], learner_k: list[int]) -> list[str]:
    notes = []
    expected_k = [row.num_accepted for row in expected]
    if len(set(learner_k)) == 1 and learner_k[0] == min(expected_k) and len(set(expected_k)) > 1:
        notes.append(
            f"Every row of yours accepted {learner_k[0]} drafts, the batch's minimum; the rows accept "
            f"{sorted(set(expected_k))} here. Each row must keep its own accepted prefix."
        )
    padding = {token for row, exp in zip(learner_tokens, expected) for token, want in zip(row, exp.tokens) if want == PAD}
    if padding - {PAD}:
        notes.append(f"After a row's last token the padding must be {PAD}; yours holds {sorted(padding - {PAD})} there.")
    return notes


def row_report(headline: str, case: str, index: int, target_probs, draft_probs, draft_tokens,
               expected: list[ExpectedRow], learner_tokens: list[list[int]], learner_k: list[int], differing: int) -> str:
    row = expected[index]
    gamma = draft_tokens.shape[1]
    lines = [headline, "", case, ""]
    lines.append(f"Row {index} is the first that differs ({differing} of {len(expected)} rows differ):")
    if target_probs.shape[-1] <= 12:
        lines.append("  p = target_probs[b] = [" + ",\n                         ".join(fmt_row(r) for r in target_probs[index].tolist()) + "]")
        q_rows = [fmt_row(r) for r in draft_probs[index].tolist()] or ["(γ = 0: no rows)"]
        lines.append("  q = draft_probs[b]  = [" + ",\n                         ".join(q_rows) + "]")
    lines.append(f"  draft_tokens[b] = {draft_tokens[index].tolist()}")
    lines.append(f"  exercise 01's stream for this row (u[b, :k+1], or u[b, :γ] when all are accepted, then v[b]): "
                 f"[{', '.join(fmt(x) for x in row.stream)}]")
    lines.append("")
    lines.append(f"  yours:     tokens {learner_tokens[index]}, num_accepted {learner_k[index]}")
    lines.append(f"  expected:  tokens {row.tokens}, num_accepted {row.num_accepted}")
    notes = usual_suspects(expected, learner_tokens, learner_k)
    if notes:
        lines += [""] + [f"Note: {note}" for note in notes]
    lines += ["", f"Exercise 01's reasoning for row {index} (γ = {gamma}), one line per emitted token:",
              reasoning_table(row.trace, unpadded(learner_tokens[index]))]
    return "\n".join(lines)
