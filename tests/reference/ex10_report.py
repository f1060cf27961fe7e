"""Exercise 10-speculative-generate: what a learner sees when their decoder goes elsewhere.

The report shows the case, the first call where a model was fed something else than the contract
prescribes (with the cache length it held), the tokens side by side, and the reference's rounds:
what the draft proposed, what the target was fed, every uniform, ratio and decision.
"""

from __future__ import annotations

from tests.reference.compare import first_difference  # noqa: F401  (re-exported for ex10/ex12 suites)
from tests.reference.ex10_reference import GenerationTrace


def fmt(value) -> str:
    return "" if value is None else f"{value:.6g}"


def feeds_with_cache(calls) -> list[tuple[tuple[int, ...], int]]:
    """(ids, cache length before) of every forward call a RecordingModel logged."""
    return [(call[1], call[2]) for call in calls if call[0] == "forward"]


def short(ids, limit: int = 12) -> str:
    ids = list(ids)
    return str(ids) if len(ids) <= limit else f"[{', '.join(map(str, ids[:4]))}, ... {len(ids) - 8} more ..., {', '.join(map(str, ids[-4:]))}]"


def feed_report(name: str, expected_feeds: list[tuple[int, ...]], calls) -> str | None:
    got = feeds_with_cache(calls)
    index = first_difference(expected_feeds, [ids for ids, _ in got])
    if index is None:
        return None
    lines = [f"The {name}'s forward_new calls differ from the contract's at call #{index + 1}:"]
    if index < len(got):
        lines.append(f"  yours:     forward_new({short(got[index][0])}) with {got[index][1]} tokens cached")
    else:
        lines.append(f"  yours:     no call #{index + 1} (you made {len(got)} calls)")
    if index < len(expected_feeds):
        lines.append(f"  expected:  forward_new({short(expected_feeds[index])})")
    else:
        lines.append(f"  expected:  no call #{index + 1} (the contract makes {len(expected_feeds)} calls)")
    crops = [call for call in calls if call[0] in ("crop", "reset")]
    if crops:
        lines.append("  your crop/reset calls, in order: " + ", ".join(
            f"crop({c[1]}) from {c[2]}" if c[0] == "crop" else f"reset() from {c[1]}" for c in crops[:10]))
    return "\n".join(lines)


def rounds_table(trace: GenerationTrace, learner_tokens, max_rounds: int = 8) -> str:
    learner = list(learner_tokens) if isinstance(learner_tokens, (list, tuple)) else []
    first = first_difference(trace.tokens, learner)
    rows = [f"  {'round':>5}  {'len':>4}  {'target fed':<24} {'pos':>3}  {'token':>5}  {'u':>9}  {'p/q':>9}  {'decision':<12} {'out':>4}  {'yours':>5}"]
    out, marked_round = 0, None
    for number, round_ in enumerate(trace.rounds):
        if first is not None and out <= first < out + len(round_.emitted):
            marked_round = number
        out += len(round_.emitted)
    start = 0 if marked_round is None else max(0, marked_round - max_rounds // 2)
    out = sum(len(r.emitted) for r in trace.rounds[:start])
    for number, round_ in enumerate(trace.rounds[start : start + max_rounds], start=start):
        head = f"  {number:>5}  {round_.start_length:>4}  {short(round_.target_feed, 6):<24}"
        for decision in round_.decisions:
            emits = decision.kind != "reject"
            yours = (str(learner[out]) if out < len(learner) else "-") if emits else ""
            mark = "  <-- first difference" if emits and out == first else ""
            label = {"accept": "accept", "reject": "reject", "replacement": "residual", "bonus": "bonus p[k]"}[decision.kind]
            rows.append(f"{head} {decision.position:>3}  {decision.token:>5}  {fmt(decision.u):>9}  {fmt(decision.ratio):>9}  "
                        f"{label:<12} {(str(decision.token) if emits else ''):>4}  {yours:>5}{mark}")
            head = " " * len(head)
            out += emits
    if start + max_rounds < len(trace.rounds):
        rows.append(f"  ... {len(trace.rounds) - start - max_rounds} more rounds")
    return "\n".join(rows)


def mismatch_report(headline: str, case: str, trace: GenerationTrace, learner_tokens, target_calls, draft_calls) -> str:
    parts = [headline, "", case, "", f"  yours:     {short(learner_tokens, 40)}", f"  expected:  {short(trace.tokens, 40)}"]
    for name, expected, calls in (("target", trace.target_feeds, target_calls), ("draft", trace.draft_feeds, draft_calls)):
        report = feed_report(name, expected, calls)
        if report:
            parts += ["", report]
    parts += ["", "The reference's rounds (len: tokens in the sequence when the round began; a rejected draft emits nothing):",
              rounds_table(trace, learner_tokens)]
    return "\n".join(parts)
