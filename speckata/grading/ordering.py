"""The order a grading suite runs in: fixed cases first, generated cases next, statistical and cost tests last.

A learner with a bug wants its first failure fast, and the plainest one: the worked examples, edge
cases and bad-input cases take milliseconds and name the mistake directly; hundreds of generated
cases come next; the statistical and cost tests, which call the learner's code thousands of times
or count its operations, run last. With ``-x`` (as ``kata check`` runs) a wrong answer is reported
before any of the slow tests start. Suites opt in with marks:

    @pytest.mark.generated     random cases compared with the reference
    @pytest.mark.statistical   a test over many runs (chi-square and the like)
    @pytest.mark.cost          a test that measures the work done (operations, allocations)

Within a tier, and across files, the collected order is kept: each file's tests stay together.
"""

from __future__ import annotations

import pytest

TIERS = {"generated": 1, "statistical": 2, "cost": 2}  # unmarked tests: tier 0
MARKS = {
    "task(n)": "the numbered task of the exercise text this test grades (reports say 'Task 2 of 3')",
    "generated": "random cases compared with the reference; run after the fixed cases",
    "statistical": "a statistical test over many calls; run last",
    "cost": "a test of the work done (operations, allocations); run last",
}


def tier(item: pytest.Item) -> int:
    return max((TIERS[mark.name] for mark in item.iter_markers() if mark.name in TIERS), default=0)


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in MARKS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    files: dict[str, int] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], len(files))
    items.sort(key=lambda item: (files[item.nodeid.split("::", 1)[0]], tier(item)))  # a stable sort
