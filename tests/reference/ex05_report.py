"""Exercise 05-sampling-settings: the grader's checks and what a learner sees when they fail.

check_warp compares warp with the reference row by row; check_step replays a stream through
speculative_step_from_logits and shows the warped rows beside exercise 01's reasoning table.
"""

from __future__ import annotations

import numpy as np

from speckata import ReplayRNG
from speckata.grading import GradingFailure, call_learner
from speckata.grading.failure_report import FailureReport, plain_tokens
from speckata.grading.position_table import fmt_row, plural
from tests.reference.ex01_report import describe_case, mismatch_report
from tests.reference.ex05_reference import reference_step, reference_warp

TOLERANCE = 1e-12
SPARE = (0.5, 0.5, 0.5)  # spare uniforms after the ones a correct step uses
CHAIN_NOTE = (
    "(speculative_step_from_logits runs your speculative_step from exercise 01, or greedy_step from "
    "exercise 04 at temperature 0: if one of those fails its own suite, fix it first.)"
)


def settings_text(settings: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in settings.items()) or "the defaults (temperature=1.0, top_k=None, top_p=None)"


def rows_text(array, indent: int = 0) -> str:
    """A row, or rows one per line aligned under the opening bracket at column ``indent``."""
    array = np.asarray(array, dtype=float)
    if array.ndim == 1:
        return fmt_row(array)
    return "[" + (",\n" + " " * (indent + 1)).join(fmt_row(row) for row in array) + "]"


def check_warp(warp, logits, what: str, **settings) -> np.ndarray:
    arguments = "".join(f", {k}={v!r}" for k, v in settings.items())
    case = f"The call: warp(logits{arguments}) with\n  logits = {rows_text(logits, 11)}"
    probs = call_learner(warp, logits, **settings, case=case)
    expected, _ = reference_warp(logits, **settings)
    if not isinstance(probs, np.ndarray) or probs.shape != expected.shape or probs.dtype != np.float64:
        got = f"an array of shape {probs.shape} and dtype {probs.dtype}" if isinstance(probs, np.ndarray) else f"{type(probs).__name__} {probs!r}"
        raise GradingFailure(f"warp must return a float64 array of the logits' shape {expected.shape}; it returned {got} ({what}).\n{case}")
    wrong = ~(np.abs(probs - expected) <= TOLERANCE) | ((expected == 0) != (probs == 0))  # NaN counts as wrong
    if wrong.any():
        tokens = np.argwhere(wrong).tolist() if probs.ndim == 2 else np.flatnonzero(wrong).tolist()
        raise GradingFailure(
            f"warp got {what} wrong (settings: {settings_text(settings)}).\n  logits   = {rows_text(logits, 13)}\n"
            f"  yours    = {rows_text(probs, 13)}\n  expected = {rows_text(expected, 13)}\n  differing tokens: {tokens}\n"
            "Order: temperature, then top-k (exactly k tokens, ties to the lower index), then top-p on the "
            "renormalised result (the shortest prefix whose mass reaches top_p); removed tokens are exactly 0."
        )
    return probs


def check_step(step, target_logits, draft_logits, draft, uniforms, what: str, **settings) -> list[int]:
    stream = list(uniforms) + list(SPARE)
    tokens_expected, draws_expected, p, q, trace = reference_step(target_logits, draft_logits, draft, stream, **settings)
    rng = ReplayRNG(stream)
    arguments = "".join(f", {k}={v!r}" for k, v in settings.items())
    case = (
        f"The call: speculative_step_from_logits(target_logits, draft_logits, {list(draft)}, rng{arguments})\n"
        f"  target_logits = {rows_text(target_logits, 18)}\n  draft_logits  = {rows_text(draft_logits, 18)}\n  stream = {stream}"
    )
    tokens = call_learner(step, target_logits, draft_logits, draft, rng, **settings, case=case + "\n" + CHAIN_NOTE)
    if tokens == tokens_expected and rng.draws == draws_expected:
        return tokens
    headline = f"speculative_step_from_logits got {what} wrong (settings: {settings_text(settings)})."
    warped = "Both sides warped with these settings (p = warp(target_logits), q = warp(draft_logits)), then"
    if trace is None:
        report = FailureReport(headline, expected=tokens_expected, yours=plain_tokens(tokens))
        report.add("", case, "", f"{warped} greedy:", describe_case(p, q, draft, []), "",
                   f"  yours:     {tokens!r} after {plural(rng.draws, 'draw')}",
                   f"  expected:  {tokens_expected!r} after 0 draws (greedy draws nothing)")
    else:
        report = mismatch_report(headline, p, q, draft, stream, trace, tokens, rng.draws)
        report.prepend("", case, "", f"{warped} exercise 01's rule:")
    report.add("", CHAIN_NOTE)
    raise report.failure()
