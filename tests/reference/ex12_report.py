"""Exercise 12-cross-tokenizer: what a learner sees when their cross-tokenizer decoder goes elsewhere.

One row per round of the reference (numbered from 1): the committed text's tail, the draft's
text, the proposal it became in the target's tokens, and every keep/reject decision with its
uniform and p; before it, the learner's model calls beside the contract's. The table is drawn by
speckata/grading/round_table.py, as exercise 10's is.
"""

from __future__ import annotations

from speckata.grading.failure_report import FailureReport, plain_tokens
from speckata.grading.position_table import PositionTable
from speckata.grading.round_table import Column, TableRound, render_rounds
from tests.reference.compare import first_difference
from tests.reference.ex10_calls import call_log, first_call_difference, learner_calls
from tests.reference.ex10_report import CALLS_TITLE, fmt
from tests.reference.ex12_reference import CrossTrace

ROUND_COLUMNS = [Column("tail", "<", 12), Column("draft wrote", "<", 20), Column("proposal", "<", 16)]
DECISION_COLUMNS = [Column("pos"), Column("token", "<"), Column("u"), Column("p"), Column("decision", "<")]


def rounds_table(trace: CrossTrace, decode, learner_tokens, max_rounds: int = 8) -> PositionTable:
    learner = list(learner_tokens) if isinstance(learner_tokens, (list, tuple)) else []
    rounds = [TableRound([repr(r.tail), repr(r.drafted_text), repr(decode(r.proposal))],
                         [([str(position), repr(decode([token])), fmt(u), fmt(p), kind],
                           None if kind == "reject" else repr(decode([token])))
                          for position, token, kind, u, p in r.decisions])
              for r in trace.rounds]
    return render_rounds(ROUND_COLUMNS, DECISION_COLUMNS, rounds, yours=[repr(decode([t])) for t in learner],
                         first=first_difference(trace.tokens, learner), max_rounds=max_rounds)


def mismatch_report(headline: str, case: str, trace: CrossTrace, decode, learner_tokens, target, draft) -> FailureReport:
    """target, draft: the RecordingModels the learner's decoder was given."""
    def shown(tokens):
        return repr(decode(tokens)) if isinstance(tokens, (list, tuple)) else repr(tokens)

    report = FailureReport(headline, expected=list(trace.tokens), yours=plain_tokens(learner_tokens))
    report.add("", case, "", f"  yours:     {shown(learner_tokens)}", f"  expected:  {shown(trace.tokens)}")
    calls = learner_calls(target, draft, draft_crops_open_a_round=True)
    difference = first_call_difference(trace.calls, calls)
    if difference is not None:
        report.add("", CALLS_TITLE, call_log(trace.calls, calls, difference))
    report.add("", "The reference's rounds (tail: the last piece of the committed text, which the draft must complete;",
               "proposal: the draft's text after the tail, in the target's tokens):")
    report.add_table(rounds_table(trace, decode, learner_tokens))
    return report
