"""Exercise 10-speculative-generate: what a learner sees when their decoder goes elsewhere, or raises.

The report shows the case, the tokens side by side, the learner's calls beside the contract's (what
each model was fed, with the cache length it held, and every crop) up to the first difference, and
the reference's rounds (numbered from 1, as the exercise text counts them): what the target was
fed, every uniform, ratio and decision. The table is drawn by speckata/grading/round_table.py.
"""

from __future__ import annotations

from speckata.grading.failure_report import FailureReport, plain_tokens
from speckata.grading.position_table import PositionTable
from speckata.grading.round_table import Column, TableRound, render_rounds
from tests.reference.compare import first_difference  # also used by the ex10 suite
from tests.reference.ex10_calls import call_log, first_call_difference, learner_calls, short
from tests.reference.ex10_reference import GenerationTrace

LABELS = {"accept": "accept", "reject": "reject", "replacement": "residual", "bonus": "bonus p[k]"}
ROUND_COLUMNS = [Column("len"), Column("target fed", "<")]
DECISION_COLUMNS = [Column("pos"), Column("token"), Column("u"), Column("p/q"), Column("decision", "<")]
CALLS_TITLE = "Your calls beside the contract's (cached: tokens the model's cache held before the call):"


def fmt(value) -> str:
    return "" if value is None else f"{value:.6g}"


def table_rounds(trace: GenerationTrace) -> list[TableRound]:
    return [TableRound([str(r.start_length), short(r.target_feed, 6)],
                       [([str(d.position), str(d.token), fmt(d.u), fmt(d.ratio), LABELS[d.kind]],
                         None if d.kind == "reject" else str(d.token)) for d in r.decisions])
            for r in trace.rounds]


def rounds_table(trace: GenerationTrace, learner_tokens, rounds: int | None = None) -> PositionTable:
    """The reference's rounds (the first `rounds` of them), the learner's tokens beside them if known."""
    known = isinstance(learner_tokens, (list, tuple))
    first = first_difference(trace.tokens, list(learner_tokens)) if known else None
    return render_rounds(ROUND_COLUMNS, DECISION_COLUMNS, table_rounds(trace)[:rounds],
                         yours=[str(t) for t in learner_tokens] if known else None, first=first)


def rounds_title(rounds: int | None = None) -> str:
    upto = "" if rounds is None else f" 1 to {rounds} (your code raised in round {rounds})"
    return (f"The reference's rounds{upto}; len: tokens in the sequence when the round began; a rejected draft "
            "emits nothing:")


def mismatch_report(headline: str, case: str, trace: GenerationTrace, learner_tokens, target, draft) -> FailureReport:
    """target, draft: the RecordingModels the learner's decoder was given."""
    got = learner_calls(target, draft)
    report = FailureReport(headline, expected=list(trace.tokens), yours=plain_tokens(learner_tokens))
    report.add("", case, "", f"  yours:     {short(learner_tokens, 40)}", f"  expected:  {short(trace.tokens, 40)}")
    difference = first_call_difference(trace.calls, got)
    if difference is not None:
        report.add("", CALLS_TITLE, call_log(trace.calls, got, difference))
    report.add("", rounds_title())
    report.add_table(rounds_table(trace, learner_tokens))
    return report


def raised_report(failure: str, trace: GenerationTrace, target, draft, before: str = "") -> FailureReport:
    """The learner's decoder raised: its calls up to the exception and the contract's next one.

    failure: the grader's message (the exception, the learner's line, the case)."""
    got = learner_calls(target, draft)
    reached = got[-1].round if got else 1
    raised, _, case = failure.partition("\n\n")
    headline, _, where = raised.partition("\n")
    if before:  # the difference first: the exception is often its symptom (issue 39)
        report = FailureReport(f"speculative_generate {before}; everything before was right. Then it raised:",
                               expected=list(trace.tokens))
        report.add(headline)
    else:
        report = FailureReport(headline, expected=list(trace.tokens))
    report.add(*([where] if where else []),
               "", case, "", CALLS_TITLE, call_log(trace.calls, got, first_call_difference(trace.calls, got), raised=True),
               "", rounds_title(reached), rounds_table(trace, None, reached).text)
    return report
