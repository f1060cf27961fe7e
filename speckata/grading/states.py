"""The verdict states, and the one rule that turns a suite's test outcomes into an exercise's state.

Used by the pytest plugin (its summary and report file), the kata command and the gates.
"""

from __future__ import annotations

# The outcome of one test, as the report file records it.
PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"  # SKIPPED: only skips the grader decided
NOT_ATTEMPTED = "not attempted"  # the learner's function still raises NotImplementedError

# The state of one exercise.
SOLVED, FAILING = "solved", "failing"
NOT_RUN = "not run"  # none of its tests were selected in this run
INCOMPLETE = "incomplete"  # some of its tests reported, others never did (the run ended early)
# Only the kata command's verdicts, for runs that produced no state at all:
MISSING, ERROR = "missing", "error"  # no file to grade; the grading run itself broke


def exercise_state(expected: int, outcomes: list[str]) -> str:
    """The state of an exercise whose run selected ``expected`` tests and saw ``outcomes``.

    Solved means every selected test reported and passed (a skip the grader decided, such as a
    CUDA case without a GPU, says nothing either way); a test that never reported is not a pass.
    """
    if expected == 0 or not outcomes:
        return NOT_RUN
    if FAILED in outcomes:
        return FAILING
    if len(outcomes) < expected:
        return INCOMPLETE
    counted = [o for o in outcomes if o != SKIPPED]
    if not counted:
        return NOT_RUN
    if all(o == NOT_ATTEMPTED for o in counted):
        return NOT_ATTEMPTED
    if all(o == PASSED for o in counted):
        return SOLVED
    return FAILING  # partly written: some pass, some still raise NotImplementedError


def is_partly_written(outcomes: list[str]) -> bool:
    return NOT_ATTEMPTED in outcomes and PASSED in outcomes and FAILED not in outcomes
