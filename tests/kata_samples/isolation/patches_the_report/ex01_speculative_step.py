"""Isolation sample (01-speculative-step): turns every failing test report into a pass.

Graded in-process this patch made pytest report every test as passed; under `kata grade` it only
changes the worker process, where no report is made.
"""

from _pytest.reports import TestReport

_original = TestReport.from_item_and_call.__func__


def _always_passed(cls, item, call):
    report = _original(cls, item, call)
    report.outcome, report.longrepr = "passed", None
    return report


TestReport.from_item_and_call = classmethod(_always_passed)


def speculative_step(p, q, draft, rng) -> list[int]:
    return [0]  # wrong on purpose: only the patch could make it pass
