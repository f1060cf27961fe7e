"""Exercise 13-ngram-draft: what a learner sees when their proposal is wrong."""

from __future__ import annotations

from tests.reference.ex13_reference import Trace


def describe_case(context, n, gamma) -> str:
    shown = [int(t) for t in context]
    if len(shown) > 40:
        listing = f"{shown[:12]} ... {shown[-20:]} ({len(shown)} tokens)"
    else:
        listing = str(shown)
    return f"The case:\n  context_ids = {listing}\n  n = {n}, gamma = {gamma}"


def reasoning(trace: Trace, context, gamma: int) -> str:
    lines = ["The reference's reasoning:"]
    if not trace.lookups:
        lines.append("  the context is too short for any n-gram with a token before it: nothing to look up")
    for lookup in trace.lookups:
        if lookup.starts:
            others = f" (all earlier occurrences start at {lookup.starts})" if len(lookup.starts) > 1 else ""
            lines.append(f"  m = {lookup.size}: suffix {lookup.suffix} occurs earlier, most recently at s = {max(lookup.starts)}{others}")
        else:
            lines.append(f"  m = {lookup.size}: suffix {lookup.suffix} never occurs earlier")
    if trace.copy_from is None:
        lines.append("  no size matched: the proposal is []")
        return "\n".join(lines)
    length = len(context)
    own = [j for j in range(gamma) if trace.copy_from + j >= length]
    note = f"; positions {length} on are the proposal's own tokens (the copy overlaps)" if own else ""
    lines.append(f"  copy {gamma} tokens from position s + m = {trace.copy_from}{note}: {trace.tokens}")
    return "\n".join(lines)


def mismatch_report(headline: str, context, n, gamma, trace: Trace, got) -> str:
    return "\n".join(
        [headline, "", describe_case(context, n, gamma), "", f"  yours:     {got!r}", f"  expected:  {trace.tokens!r}",
         "", reasoning(trace, context, gamma)]
    )
