"""Exercise 15-multi-candidate: what a learner sees when their result or draws are wrong.

The report shows the case (p, q, the candidates, the replayed stream), the learner's (token, index)
and draws beside the reference's, a note when the number of draws gives the mistake away, and the
reference's reasoning candidate by candidate (speckata.grading.position_table), with the first
difference marked.
"""

from __future__ import annotations

from speckata.grading.failure_report import FailureReport
from speckata.grading.position_table import fmt_row, plural, reasoning_table
from speckata.grading.trace import StepTrace
from tests.reference.ex15_reference import outcome

TABLE_TITLE = ("The reference's reasoning: one row per tried candidate (pos = its index j, p/q = p_j(x) / q_j(x)), "
               "then the sample when all were rejected:")
RULES = {False: "verify_candidates (i.i.d. candidates)",
         True: "verify_candidates_without_replacement"}


def describe_case(p, q, candidates, stream, without_replacement: bool) -> str:
    limit = 12
    return "\n".join([
        f"The call: {RULES[without_replacement].split(' ')[0]}(p, q, candidates, rng) with",
        f"  p (target) = {fmt_row(p, limit)}",
        f"  q (draft)  = {fmt_row(q, limit)}",
        f"  candidates = {[int(c) for c in candidates]}",
        f"  stream     = {[float(u) for u in stream]}",
    ])


def implied_draws(result, candidates) -> int | None:
    """The draws a (token, index) result takes under the contract: one per candidate tried, plus the
    final sample when none was accepted; None when the result is not of that form."""
    if not (isinstance(result, tuple) and len(result) == 2):
        return None
    index = result[1]
    if index is None:
        return len(candidates) + 1
    return index + 1 if type(index) is int and 0 <= index < len(candidates) else None


def draw_count_note(draws: int, expected: int, result=None, candidates=()) -> list[str]:
    """What a wrong number of draws says, when it says anything: a count that matches the learner's
    own result (they accepted a candidate the reference rejected, or the other way round) is the
    consequence of that decision, which the table shows, not a mistake in drawing."""
    own = implied_draws(result, candidates)
    if draws < expected and (own is None or draws < own):
        return [(f"you drew {plural(draws, 'number')} from rng, the reference drew {expected}: the contract is one "
                 "rng.random() for every candidate tried (in order, until one is accepted) and, if all are "
                 "rejected, one sample(p, rng). Is another random source (np.random, random) in use?")]
    if draws > expected and (own is None or draws > own):
        return [(f"you drew {plural(draws, 'number')} from rng, the reference drew {expected}: stop at the first "
                 "accepted candidate, draw nothing ahead, and sample only when every candidate was rejected.")]
    return []


def mismatch_report(headline: str, p, q, candidates, stream, without_replacement: bool,
                    trace: StepTrace, result, draws: int) -> FailureReport:
    expected = outcome(trace)
    token = result[0] if isinstance(result, tuple) and len(result) == 2 else None
    report = FailureReport(headline, expected=[expected[0]], yours=[token] if type(token) is int else None)
    report.add("", describe_case(p, q, candidates, stream, without_replacement), "",
               f"  yours:     {result!r} after {plural(draws, 'draw')}",
               f"  expected:  {expected!r} after {plural(trace.draws, 'draw')}",
               "  (a result is (token, index of the accepted candidate), or (token, None) when all were rejected)")
    notes = draw_count_note(draws, trace.draws, result, candidates)
    if notes:
        report.add("")
        report.add_notes(notes)
    report.add("", TABLE_TITLE)
    report.add_table(reasoning_table(trace, [token] if token is not None else None, rule="p/q"))
    return report
