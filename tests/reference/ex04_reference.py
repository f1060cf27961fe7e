"""Exercise 04-greedy-step: an independent reference that records its reasoning.

It scans each row for its first maximum by hand (no np.argmax) and imports nothing from
solutions/. Besides the tokens it returns one line per position for the failure report.
"""

from __future__ import annotations

import numpy as np


def first_maximum(row) -> int:
    best = 0
    for index, value in enumerate(row):
        if value > row[best]:
            best = index
    return best


def reference_greedy(p, q, draft) -> tuple[list[int], list[str]]:
    p = np.asarray(p, dtype=np.float64)
    tokens, reasons = [], []
    for i, x in enumerate(int(t) for t in draft):
        choice = first_maximum(p[i])
        tokens.append(choice)
        if x == choice:
            reasons.append(f"  pos {i}: drafted {x}, argmax p[{i}] = {choice}: accept")
            continue
        reasons.append(f"  pos {i}: drafted {x}, argmax p[{i}] = {choice}: disagree, emit {choice} and stop")
        return tokens, reasons
    choice = first_maximum(p[len(draft)])
    tokens.append(choice)
    reasons.append(f"  pos {len(draft)}: all drafts accepted, bonus argmax p[{len(draft)}] = {choice}")
    return tokens, reasons
