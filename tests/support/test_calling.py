"""speckata.grading.calling: a learner's exception becomes a readable failure, and ``case`` (text, or a
function that writes it) is described only when something failed."""

from __future__ import annotations

import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error


def raises_type_error(*args, **kwargs):
    raise TypeError("boom")


def test_a_crash_is_reported_with_the_case_written_by_a_function():
    with pytest.raises(GradingFailure, match="raised TypeError: boom(.|\n)*The call: f"):
        call_learner(raises_type_error, 1, case=lambda: "The call: f(1)")


def test_the_case_function_is_not_called_when_the_call_succeeds():
    def never() -> str:
        raise AssertionError("described a call that passed")

    assert call_learner(lambda x: x + 1, 1, case=never) == 2


def test_the_wrong_exception_on_bad_input_is_named():
    with pytest.raises(GradingFailure, match="should raise ValueError for a bad p, but raised TypeError: boom"):
        expect_value_error(raises_type_error, 1, mentions=("p",), problem="a bad p")
