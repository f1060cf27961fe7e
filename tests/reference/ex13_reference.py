"""Exercise 13-ngram-draft: an independent reference that records where it looked.

It lives in tests/ and does not import solutions/. It finds occurrences differently from the
solution (every start of every size, collected first, then the largest chosen) and keeps the
reasoning, so a failure can say which n-gram matched where and what was copied.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Lookup:
    size: int
    suffix: list[int]
    starts: list[int]  # every earlier occurrence, ascending


@dataclass
class Trace:
    tokens: list[int] = field(default_factory=list)
    lookups: list[Lookup] = field(default_factory=list)  # the sizes tried, longest first
    start: int | None = None  # the chosen occurrence
    copy_from: int | None = None  # s + m: where the copy begins


def reference_trace(context, n: int, gamma: int) -> Trace:
    context = [int(t) for t in context]
    length = len(context)
    trace = Trace()
    for size in sorted((m for m in range(1, n + 1) if m < length), reverse=True):
        suffix = context[length - size :]
        starts = [s for s in range(length - size) if context[s : s + size] == suffix]
        trace.lookups.append(Lookup(size, suffix, starts))
        if starts:
            trace.start = max(starts)
            trace.copy_from = trace.start + size
            source = context + [None] * gamma
            for j in range(gamma):  # an overlapping copy reads what it has just written
                source[length + j] = source[trace.copy_from + j]
            trace.tokens = source[length:]
            return trace
    return trace
