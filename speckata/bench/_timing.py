"""How the benches' cost tables time their steps: each step called ``calls`` times per timing,
``repeats`` timings, the steps interleaved within a repeat (so a slow moment of the machine falls
on all of them), then every step's median and min..max in units of one step's median.

Shared by the heads bench (heads_steps, heads_medusa_tree, heads_eagle2) and the early exit bench
(early_exit_steps). The leading underscore keeps it out of ``python -m speckata.bench``'s list.
"""

from __future__ import annotations

import statistics
import time


def timed(call, calls: int) -> float:
    """Seconds per call of ``call()``, over ``calls`` calls in a row."""
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls


def interleaved_seconds(steps: dict, repeats: int, calls: int) -> dict[str, list[float]]:
    """name -> its ``repeats`` timings (seconds per call), every step timed once per repeat, in order."""
    seconds = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():  # interleaved
            seconds[name].append(timed(step, calls))
    return seconds


def in_units_of(unit_name: str, seconds: dict[str, list[float]]) -> dict[str, dict]:
    """name -> {"passes": its median, "spread": [its min, its max]}, each over the median of ``unit_name``."""
    unit = statistics.median(seconds[unit_name])
    return {name: {"passes": statistics.median(times) / unit, "spread": [min(times) / unit, max(times) / unit]}
            for name, times in seconds.items()}
