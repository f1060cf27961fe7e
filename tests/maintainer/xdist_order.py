"""The order CI's two processes get the tests in: two halves of equal cost, the costliest first in each.

`pytest -n 2 --dist worksteal` (the README's maintainers' command) hands the first half of the
collected tests to one worker and the second half to the other, then lets an idle worker take half
of the other's remaining queue. Collected as they are (file by file), the notebooks, the sandboxed
gradings and the mutant gate sit together near the end, and a run of them ended in a long tail
(the last 5% of the tests took 10 of its 25 minutes). This orders the tests so that each half costs about the same (the longest
first, each given to the half that costs less so far: longest-processing-time scheduling), with
each half's costliest test first and its cheapest last, where stealing takes from.

Tests that share a module-scoped fixture (a sandbox run that several tests read) stay together
in one half, so the fixture runs once. A test's cost is the time it took in a recorded CI run
(tests/maintainer/durations.json, refreshed with scripts/ci_durations.py); a test not listed
counts as cheap. Only the order changes: the same tests run, each once, whatever the costs say.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("durations.json")
LISTED_ABOVE = 0.25  # seconds: tests/maintainer/durations.json lists the tests that took longer
UNLISTED_SECONDS = 0.05  # what a test not listed counts as (most take a few hundredths)


def key(item: pytest.Item) -> str:
    """The test's name as JUnit XML writes it (dotted module and class, then the test): the durations' key."""
    path, *names = item.nodeid.split("::")
    return ".".join([path.removesuffix(".py").replace("/", "."), *names[:-1]]) + "::" + names[-1]


def shared_fixtures(item: pytest.Item) -> tuple[str, ...]:
    """The module- or class-scoped fixtures the test uses: tests that share one run it once only together."""
    definitions = getattr(item, "_fixtureinfo", None)
    if definitions is None:
        return ()
    return tuple(sorted(name for name, defs in definitions.name2fixturedefs.items()
                        if defs and defs[-1].scope in ("module", "class")))


def units(items: list[pytest.Item], seconds: dict[str, float]) -> list[tuple[float, list[pytest.Item]]]:
    """(cost, tests) per unit of scheduling: a test, or a module's tests that share a fixture."""
    groups: dict[tuple, list[pytest.Item]] = {}
    for index, item in enumerate(items):
        shared = shared_fixtures(item)
        groups.setdefault((item.nodeid.split("::")[0], shared) if shared else (index,), []).append(item)
    return [(sum(seconds.get(key(item), UNLISTED_SECONDS) for item in group), group) for group in groups.values()]


def balanced_order(items: list[pytest.Item], seconds: dict[str, float]) -> list[pytest.Item]:
    """Two halves of len(items) // 2 and the rest, of about equal cost, each from its costliest test down."""
    capacity = [len(items) // 2, len(items) - len(items) // 2]
    halves: list[list[tuple[float, list[pytest.Item]]]] = [[], []]
    cost = [0.0, 0.0]
    for unit in sorted(units(items, seconds), key=lambda unit: -unit[0]):  # a stable sort: ties keep their order
        fits = [half for half in (0, 1) if capacity[half] >= len(unit[1])]
        half = min(fits or (0, 1), key=lambda h: (cost[h], h))
        halves[half].append(unit)
        cost[half] += unit[0]
        capacity[half] -= len(unit[1])
    return [item for half in halves for _, group in half for item in group]


def reorder(items: list[pytest.Item]) -> None:
    """Put ``items`` in the balanced order, in place (the same order in every worker)."""
    seconds = json.loads(DURATIONS.read_text()) if DURATIONS.is_file() else {}
    items[:] = balanced_order(items, seconds)
