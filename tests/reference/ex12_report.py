"""Exercise 12-cross-tokenizer: what a learner sees when their cross-tokenizer decoder goes elsewhere.

One row per round of the reference: the committed text's tail, the draft's text, the proposal it
became in the target's tokens, and every keep/reject decision with its uniform and p.
"""

from __future__ import annotations

from tests.reference.ex10_report import feed_report, first_difference, fmt, short
from tests.reference.ex12_reference import CrossTrace


def rounds_table(trace: CrossTrace, decode, learner_tokens, max_rounds: int = 8) -> str:
    learner = list(learner_tokens) if isinstance(learner_tokens, (list, tuple)) else []
    first = first_difference(trace.tokens, learner)
    rows = [f"  {'round':>5}  {'tail':<8} {'draft wrote':<16} {'proposal':<12} {'pos':>3}  {'token':<7} {'u':>9}  {'p':>9}  "
            f"{'decision':<12} {'yours':<7}"]
    out, start = 0, 0
    if first is not None:
        for number, round_ in enumerate(trace.rounds):
            if out + len(round_.emitted) > first:
                start = max(0, number - max_rounds // 2)
                break
            out += len(round_.emitted)
    out = sum(len(r.emitted) for r in trace.rounds[:start])
    for number, round_ in enumerate(trace.rounds[start : start + max_rounds], start=start):
        head = f"  {number:>5}  {round_.tail!r:<8} {round_.drafted_text!r:<16} {decode(round_.proposal)!r:<12}"
        for position, token, kind, u, p in round_.decisions:
            emits = kind != "reject"
            yours = (repr(decode([learner[out]])) if out < len(learner) else "-") if emits else ""
            mark = "  <-- first difference" if emits and out == first else ""
            rows.append(f"{head} {position:>3}  {decode([token])!r:<7} {fmt(u):>9}  {fmt(p):>9}  {kind:<12} {yours:<7}{mark}")
            head = " " * len(head)
            out += emits
    if start + max_rounds < len(trace.rounds):
        rows.append(f"  ... {len(trace.rounds) - start - max_rounds} more rounds")
    return "\n".join(rows)


def mismatch_report(headline: str, case: str, trace: CrossTrace, decode, learner_tokens, target_calls, draft_calls) -> str:
    shown = lambda tokens: repr(decode(tokens)) if isinstance(tokens, (list, tuple)) else repr(tokens)  # noqa: E731
    parts = [headline, "", case, "", f"  yours:     {shown(learner_tokens)}", f"  expected:  {shown(trace.tokens)}"]
    for name, expected, calls in (("target", trace.target_feeds, target_calls), ("draft", trace.draft_feeds, draft_calls)):
        report = feed_report(name, expected, calls)
        if report:
            parts += ["", report]
    parts += ["", "The reference's rounds (tail: the last piece of the committed text, which the draft must complete;\n"
                  "proposal: the draft's text after the tail, in the target's tokens):",
              rounds_table(trace, decode, learner_tokens)]
    return "\n".join(parts)


__all__ = ["mismatch_report", "short"]
