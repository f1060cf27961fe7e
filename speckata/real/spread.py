"""Timings that survive a rerun: medians with their min-max spread, and a verdict only outside the noise.

A benchmark on a shared machine sees bursts of load. So every decoder runs several times, the
decoders taking turns (round-robin, the order rotating each repeat), and each is summarised by its
median and the span from its fastest to its slowest run. One decoder is called **ahead** of
another only when its slowest run was faster than the other's fastest (the spans do not overlap),
**behind** in the mirror case, and **within noise** otherwise. Because the decoders of one round
run back to back, each round also gives a **paired** speedup (theirs / ours in that round), which
a slow stretch of the machine touches on both sides; its min-max span and whether ours won every
round are reported beside the strict verdict, never instead of it:

>>> verdict([1.0, 1.1, 1.2], [1.3, 1.5, 1.4])
'ahead'
>>> verdict([1.0, 1.1, 1.35], [1.3, 1.5, 1.4])
'within noise'
>>> paired([1.0, 1.5, 1.2], [1.3, 1.6, 1.4])
{'paired_span': [1.067, 1.3], 'paired_verdict': 'ahead every round'}
>>> summary([3.0, 1.0, 2.0, 9.0, 2.5])
{'median': 2.5, 'min': 1.0, 'max': 9.0}
"""

from __future__ import annotations

import statistics

# Each of our decoders, and the one of transformers' it is compared with.
PAIRS = {"plain (ours)": "plain (hf)", "lookup (ours)": "lookup (hf)", "tiny (ours)": "assisted (hf)"}


def summary(seconds: list[float]) -> dict:
    return {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds)}


def verdict(ours: list[float], theirs: list[float]) -> str:
    """'ahead' when every run of ours beat every run of theirs, 'behind' in the mirror case."""
    if max(ours) < min(theirs):
        return "ahead"
    if min(ours) > max(theirs):
        return "behind"
    return "within noise"


def rotated(decoders: list[str], repeat: int) -> list[str]:
    """The decoders in turn, starting one later each repeat, so none always runs first or last."""
    shift = repeat % len(decoders) if decoders else 0
    return decoders[shift:] + decoders[:shift]


def speedup_span(baseline: list[float], seconds: list[float]) -> tuple[float, float, float]:
    """The speedup over ``baseline`` at the medians, and its worst and best case across the spans."""
    return (statistics.median(baseline) / statistics.median(seconds), min(baseline) / max(seconds),
            max(baseline) / min(seconds))


def paired(ours: list[float], theirs: list[float]) -> dict:
    """Round by round, theirs / ours: the span of those ratios and whether ours won every round."""
    ratios = [t / o for o, t in zip(ours, theirs)]
    if min(ratios) > 1:
        said = "ahead every round"
    elif max(ratios) < 1:
        said = "behind every round"
    else:
        said = "mixed"
    return {"paired_span": [round(min(ratios), 3), round(max(ratios), 3)], "paired_verdict": said}
