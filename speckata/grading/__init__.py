"""The grading harness: load the learner's code from the target folder and explain failures.

A small layer over pytest, not a second test framework: the suites in ``tests/`` are ordinary
pytest files that get the learner's functions from :func:`learner_function` and report
mismatches by raising :class:`GradingFailure` with a message written for a person.
"""

from speckata.grading.failures import GradingFailure, call_learner, expect_value_error
from speckata.grading.target import learner_function, set_target, target_dir

__all__ = [
    "GradingFailure",
    "call_learner",
    "expect_value_error",
    "learner_function",
    "set_target",
    "target_dir",
]
