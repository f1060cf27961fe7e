"""The grader: a small layer over pytest, not a second test framework.

The suites in ``tests/`` are ordinary pytest files that get the learner's functions from
:func:`learner_function`, call them through :func:`call_learner`, and report mismatches by
raising :class:`GradingFailure` with a message written for a person. The package owns the graded
folder (target.py), loading learner code (learner_code.py; lookup.py: in-process or from the isolated worker), calling it safely (calling.py,
time_limit.py), the verdict states (states.py), the pytest plugin (plugin.py) with its report
(report.py), and running a suite as a subprocess (suite_run.py).
"""

from speckata.grading.calling import call_learner, expect_value_error
from speckata.grading.failures import GradingFailure
from speckata.grading.lookup import learner_function
from speckata.grading.target import set_target, target_dir

__all__ = [
    "GradingFailure",
    "call_learner",
    "expect_value_error",
    "learner_function",
    "set_target",
    "target_dir",
]
