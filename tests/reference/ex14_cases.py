"""Exercise 14-block-verification: how the suite calls the learner's functions and checks what comes back.

The replayed cases, the generated cases and the exact expectations of
tests/test_14_block_verification.py, kept apart so that the suite reads like the exercise text.
"""

from __future__ import annotations

import math

import numpy as np

from speckata import ReplayRNG
from speckata.grading import GradingFailure, call_learner, learner_function
from speckata.grading.position_table import plural
from tests.reference.ex01_report import later_case
from tests.reference.ex14_reference import expected_accepted as reference_expected
from tests.reference.ex14_reference import reference_trace
from tests.reference.ex14_report import mismatch_report
from tests.shared.cases import random_verify_case

EXERCISE = "14-block-verification"
SPARE = (0.5, 0.5, 0.5)  # spare uniforms after the γ + 1 a correct step uses


def block_verify():
    return learner_function(EXERCISE, "block_verify")


def expected_accepted():
    return learner_function(EXERCISE, "expected_accepted")


def call_step(fn, p, q, draft, rng, case="(statistical test)"):
    return call_learner(fn, p, q, draft, rng, case=case)


def check_case(p, q, draft, uniforms, what: str) -> list[int]:
    """Replay ``uniforms`` (plus spares) and compare tokens and draws with the reference."""
    stream = list(uniforms) + list(SPARE)
    rng = ReplayRNG(stream)
    tokens = call_learner(block_verify(), p, q, draft, rng, case=later_case(p, q, draft, stream))
    trace = reference_trace(p, q, draft, stream)
    if tokens != trace.tokens or rng.draws != trace.draws:
        headline = f"block_verify got {what} wrong."
        if tokens == trace.tokens:
            headline += f" The tokens are right but it drew {plural(rng.draws, 'random number')} instead of {trace.draws}."
        raise mismatch_report(headline, p, q, draft, stream, trace, tokens, rng.draws).failure()
    if not all(type(token) is int for token in tokens):
        kinds = sorted({type(token).__name__ for token in tokens})
        raise GradingFailure(f"block_verify must return plain Python ints; the list holds {kinds}. Use int(token).")
    return tokens


RANDOM_CASES = 60  # per vocabulary size: 300 steps of every shape from γ = 0 to 6


def random_case(gen, vocab: int):
    """A step as a real draft and target give it, with uniforms at least 1e-9 from every boundary."""
    p, q, draft = random_verify_case(gen, vocab)
    while True:
        uniforms = gen.random(len(draft) + 1).tolist()
        if reference_trace(p, q, draft, uniforms + list(SPARE)).margin() > 1e-9:
            return p, q, draft, uniforms


def plain_number(value) -> str:
    """A numpy float as the number it holds (2.5, not np.float64(2.5)); anything else as it is."""
    return repr(float(value)) if isinstance(value, np.floating) else repr(value)


def check_expected(p, q, rule, what: str) -> float:
    got = call_learner(expected_accepted(), p, q, rule, case=f"expected_accepted(p, q, {rule!r}) on {what}")
    want = reference_expected(p, q, rule)
    if not isinstance(got, (float, int, np.floating)) or isinstance(got, bool) or not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
        raise GradingFailure(
            f"expected_accepted(p, q, {rule!r}) on {what} returned {plain_number(got)}; expected {float(want)!r}.\n"
            f"  p = {np.asarray(p).round(4).tolist()}\n  q = {np.asarray(q).round(4).tolist()}\n"
            "It counts the drafts kept (not the extra token): Σ_i E_q[P(at least i kept | x_1..x_i)].")
    return float(got)
