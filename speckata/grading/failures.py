"""The two ways a graded test ends badly on purpose: a wrong answer, and code that did not return."""

from __future__ import annotations


class GradingFailure(AssertionError):
    """A test failed; ``str(failure)`` is the whole explanation (the plugin shows no traceback).

    ``detail`` optionally carries the same finding as data (say, the index of the first difference)
    for tools that read the report file, so that they never have to parse the text.
    """

    def __init__(self, message: str = "", detail: dict | None = None):
        super().__init__(message)
        self.detail = detail


class LearnerStopped(BaseException):
    """Raised into code under test when its time is up.

    A BaseException, not an Exception, so ``except Exception`` in learner code does not swallow
    it; code that catches even this is stopped another way (see time_limit.py).
    """
