"""Exercise 07-torch-step: what a learner sees when their tokens or generator state are wrong.

The case (the inputs and the seed), the learner's result beside the reference's, what a
generator left in another state says about the draws (a float64 uniform is recognised by
replaying it), and the reference's reasoning position by position
(speckata.grading.position_table) with the first difference marked.
"""

from __future__ import annotations

import torch

from speckata.grading.failure_report import FailureReport
from speckata.grading.position_table import fmt_row, matrix, reasoning_table
from tests.reference.ex07_reference import TorchStepTrace, make_generator, reference_step

TABLE_TITLE = "The reference's reasoning, one row per emitted token (a rejected draft has no output index):"
FLOAT64_UNIFORMS = (
    "your generator ends exactly where it would after drawing every u as float64: is it "
    "torch.rand(..., dtype=target_probs.dtype) on these float64 inputs? Exercise 07 draws each u in "
    "float32 whatever the inputs' dtype: torch.rand((), generator=generator, device=...), no dtype "
    "argument. A float64 draw uses the generator differently, so every later number shifts. "
    "(Exercise 08 is the other way round: it draws u and v in the inputs' dtype.)"
)


def state_headline(what: str, tokens_right: bool) -> str:
    """The headline when the learner's generator ends in another state than the reference's."""
    tokens = "Its tokens are right" if tokens_right else "Its tokens differ too"
    return (
        f"speculative_decode_step drew other random numbers than the contract on {what}: the generator's state "
        f"afterwards differs from the reference's. {tokens}. Look for a torch.rand too many or too few, one of "
        "another shape or dtype, or a sample drawn some other way than torch.multinomial(..., 1, generator=generator)."
    )


def describe_case(draft_probs, target_probs, draft_tokens, seed: int, max_rows: int = 8) -> str:
    lines = [f"The case ({target_probs.dtype}, on {target_probs.device}):"]
    for name, rows in (("target_probs (p)", target_probs), ("draft_probs  (q)", draft_probs)):
        shown = [fmt_row(r) if rows.shape[1] <= 12 else f"<row of {rows.shape[1]} probabilities>" for r in rows[:max_rows]]
        more = f" ... ({rows.shape[0]} rows)" if rows.shape[0] > max_rows else ""
        lines.append(matrix(f"  {name} = ", shown, more))
    lines.append(f"  draft_tokens     = {draft_tokens.tolist()}")
    lines.append(f"  generator        = torch.Generator().manual_seed({seed})")
    return "\n".join(lines)


def learner_tokens(result) -> list | None:
    """The learner's tokens as a list, or None when the result holds no 1-D token tensor."""
    if isinstance(result, tuple) and result and isinstance(result[0], torch.Tensor) and result[0].ndim == 1:
        return result[0].tolist()
    return None


def stream_notes(draft_probs, target_probs, draft_tokens, seed: int, state: torch.Tensor) -> list[str]:
    """Mistakes recognised by replaying them: the generator ends where the mistake leaves it."""
    replay = make_generator(seed, target_probs.device)
    reference_step(draft_probs, target_probs, draft_tokens, replay, uniform_dtype=torch.float64)
    return [FLOAT64_UNIFORMS] if torch.equal(replay.get_state(), state) else []


def mismatch_report(headline: str, case: str, trace: TorchStepTrace, result, notes=()) -> FailureReport:
    tokens = learner_tokens(result)
    report = FailureReport(headline, expected=trace.tokens, yours=tokens)
    report.add("", case, "", f"  yours:     {result!r}",
               f"  expected:  ({torch.tensor(trace.tokens)!r}, {trace.num_accepted})")
    if notes:
        report.add("")
        report.add_notes(list(notes))
    report.add("", TABLE_TITLE)
    report.add_table(reasoning_table(trace, tokens, rule="min(1, p/q)"))
    return report
