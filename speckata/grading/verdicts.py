"""What the plugin makes of a finished test: not attempted, stopped, skipped by whom, or a failure
that names the learner's line instead of showing the grader's traceback."""

from __future__ import annotations

import unittest

from _pytest.outcomes import Skipped, XFailed

from speckata.grading.failures import GradingFailure, LearnerStopped
from speckata.grading.learner_lines import learner_line_of_error, raised_in_learner_code
from speckata.grading.target import is_reference_target


def _at(error: BaseException) -> str:
    line = learner_line_of_error(error)
    return f"\n  at {line}" if line else ""


def words_its_own_message(error: BaseException) -> bool:
    """Whether ``classify_call`` replaces pytest's failure text for ``error`` with its own (every branch
    below that sets ``longrepr``). For those, pytest need not format its traceback: it reads and
    parses the source of every frame, two thirds of the time of `pytest` on the untouched stubs."""
    if isinstance(error, (NotImplementedError, LearnerStopped, GradingFailure, SystemExit)):
        return True
    return raised_in_learner_code(error)  # a skip too: the learner's is reworded, the grader's is kept


def classify_call(report, error: BaseException) -> None:
    """Rewrite ``report`` (the call phase's) for the learner; sets ``report.speckata_kind``."""
    if isinstance(error, NotImplementedError):
        if is_reference_target():
            report.longrepr = f"the reference raised NotImplementedError: {error}"
            report.speckata_kind = "failed"
            return
        report.outcome = "skipped"
        report.longrepr = (str(report.fspath), report.location[1] or 0, f"not attempted: {error}")
        report.speckata_kind = "not attempted"
    elif isinstance(error, LearnerStopped):
        report.outcome, report.longrepr, report.speckata_kind = "failed", str(error), "stopped"
    elif isinstance(error, GradingFailure):
        report.longrepr, report.speckata_kind = str(error), "failed"
        report.speckata_detail = error.detail
    elif isinstance(error, (Skipped, XFailed, unittest.SkipTest)):
        if raised_in_learner_code(error):
            report.outcome = "failed"
            report.longrepr = (
                f"your code skipped this test ({type(error).__name__}: {error}); a skipped test is not "
                f"a pass: only the grader decides what to skip{_at(error)}"
            )
            report.speckata_kind = "failed"
        else:
            report.speckata_kind = "skipped"
    elif isinstance(error, SystemExit):
        report.outcome = "failed"
        report.longrepr = (f"your code called sys.exit({error.code!r}): the grader needs your function to "
                           f"return{_at(error)}")
        report.speckata_kind = "failed"
    elif raised_in_learner_code(error):
        report.longrepr = f"your code raised {type(error).__name__}: {error}{_at(error)}"
        report.speckata_kind = "failed"
