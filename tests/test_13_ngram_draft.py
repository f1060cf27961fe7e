"""Grading suite for exercise 13-ngram-draft: ngram_draft(context_ids, n, gamma).

Every case is compared with an independent reference (tests/reference/ex13_reference.py); a
mismatch shows which n-gram the reference matched, where, and what it copied.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex13_reference import reference_trace
from tests.reference.ex13_report import describe_case, mismatch_report
from tests.shared.cases import case_rng

EXERCISE = "13-ngram-draft"


def ngram_draft():
    return learner_function(EXERCISE, "ngram_draft")


def check_case(context, n, gamma, what: str) -> list[int]:
    got = call_learner(ngram_draft(), context, n, gamma, case=describe_case(context, n, gamma))
    trace = reference_trace(list(context), n, gamma)
    if not isinstance(got, list):
        raise GradingFailure(f"ngram_draft must return a list; for {what} it returned {type(got).__name__}: {got!r}")
    if got != trace.tokens:
        raise GradingFailure(mismatch_report(f"ngram_draft got {what} wrong.", list(context), n, gamma, trace, got))
    if not all(type(token) is int for token in got):
        kinds = sorted({type(token).__name__ for token in got})
        raise GradingFailure(f"ngram_draft must return plain Python ints; for {what} the list holds {kinds}. Use int(token).")
    return got


# Task 1: the worked example ------------------------------------------------------------------

WORKED = [5, 1, 2, 9, 7, 1, 2, 3, 4, 1, 2]


@pytest.mark.task(1)
def test_worked_example_falls_back_to_the_bigram():
    assert check_case(WORKED, 3, 3, "the worked example") == [3, 4, 1]


@pytest.mark.task(1)
def test_worked_example_overlapping_copy():
    assert check_case([1, 2, 3, 1, 2, 3, 1], 2, 5, "the worked example with an overlapping match") == [2, 3, 1, 2, 3]


@pytest.mark.task(1)
def test_worked_example_no_match():
    assert check_case([1, 2, 3], 2, 4, "the worked example with no match") == []


# Task 2: the most recent earlier occurrence, never the suffix itself -------------------------

@pytest.mark.task(2)
def test_the_most_recent_occurrence_wins_over_the_first():
    context = [8, 4, 0, 0, 8, 4, 1, 1, 6, 8, 4]  # [8, 4] at 0 and 4: copy from 6, not from 2
    assert check_case(context, 2, 3, "a suffix that occurs twice earlier") == [1, 1, 6]


@pytest.mark.task(2)
def test_the_suffix_itself_is_not_an_occurrence():
    # [1] ends the context at 3 and occurs earlier at 1: copy from 2. Counting the suffix itself
    # (s = 3) would copy from position 4, past the end, before anything is there to copy.
    assert check_case([3, 1, 4, 1], 1, 2, "a suffix [1] that also occurs at position 1") == [4, 1]


# Task 3: longest n-gram first, then shorter ones ---------------------------------------------

@pytest.mark.task(3)
def test_the_longest_matching_ngram_decides_even_if_a_shorter_one_is_more_recent():
    context = [1, 2, 3, 7, 9, 9, 3, 5, 5, 1, 2, 3]  # [1, 2, 3] at 0 -> 7, 9; [3] alone last at 6 -> 5, 5
    assert check_case(context, 3, 2, "a trigram match with a more recent unigram match") == [7, 9]


@pytest.mark.task(3)
def test_a_size_longer_than_the_context_allows_is_skipped():
    assert check_case([4, 4], 5, 3, "n = 5 on a context of 2 tokens") == [4, 4, 4]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.task(3)
def test_each_n_uses_sizes_up_to_n_only(n):
    context = [9, 1, 2, 3, 4, 0, 8, 2, 3, 4, 6, 5, 3, 4, 7, 7, 4, 1, 1, 2, 3, 4]
    check_case(context, n, 4, f"n = {n} on a context whose suffixes of sizes 1 to 4 match at different places")


# Task 4: overlapping matches copy their own proposal -----------------------------------------

@pytest.mark.task(4)
def test_a_run_of_one_token_repeats_it():
    assert check_case([7, 7, 7, 7], 2, 5, "a run [7, 7, 7, 7]") == [7, 7, 7, 7, 7]


@pytest.mark.task(4)
def test_a_period_longer_than_the_match_is_continued():
    assert check_case([5, 6, 1, 2, 3, 4, 1, 2], 2, 6, "a period of 4 after a match of 2") == [3, 4, 1, 2, 3, 4]


@pytest.mark.task(4)
def test_the_proposal_always_has_gamma_tokens_after_a_match():
    assert check_case([2, 9, 2], 1, 7, "a unigram match right before the suffix") == [9, 2, 9, 2, 9, 2, 9]


# Task 5: empty proposals ---------------------------------------------------------------------

@pytest.mark.parametrize("context", [[], [3]], ids=["empty-context", "one-token"])
@pytest.mark.task(5)
def test_a_context_too_short_to_look_up_proposes_nothing(context):
    assert check_case(context, 3, 4, f"context {context}") == []


@pytest.mark.task(5)
def test_gamma_zero_proposes_nothing():
    assert check_case(WORKED, 3, 0, "gamma = 0") == []


@pytest.mark.task(5)
def test_all_distinct_tokens_propose_nothing():
    assert check_case(list(range(20)), 4, 5, "twenty distinct tokens") == []


# Task 6: inputs and outputs ------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["tuple", "int64-array", "int32-array"])
@pytest.mark.task(6)
def test_tuples_and_numpy_arrays_are_accepted_and_plain_ints_returned(kind):
    context = {"tuple": tuple(WORKED), "int64-array": np.array(WORKED), "int32-array": np.array(WORKED, dtype=np.int32)}[kind]
    assert check_case(context, 3, 3, f"the worked example as a {kind}") == [3, 4, 1]


@pytest.mark.task(6)
def test_does_not_modify_its_input():
    context = list(WORKED)
    call_learner(ngram_draft(), context, 3, 5, case=describe_case(context, 3, 5))
    if context != WORKED:
        raise GradingFailure(f"ngram_draft changed its context_ids in place: it is now {context}; work on a copy.")


@pytest.mark.task(6)
def test_a_long_context_of_real_length():
    gen = np.random.default_rng(13)
    context = gen.integers(0, 40, size=4096)
    context[-6:] = context[1000:1006]  # a 6-token echo of the past, so n = 6 matches
    check_case(context, 6, 10, "a context of 4096 tokens")


# Task 7: thousands of random cases against the reference -------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 5, 30])
@pytest.mark.task(7)
def test_random_cases_match_the_reference(vocab):
    gen = case_rng(1300 + vocab)
    cases = 500
    for index in range(cases):
        length = int(gen.integers(0, 50))
        context = gen.integers(0, vocab, size=length).tolist()
        if length > 8 and gen.random() < 0.5:  # repeat a stretch, as a copying model would
            start = int(gen.integers(0, length - 4))
            context += context[start : start + int(gen.integers(2, 8))]
        n, gamma = int(gen.integers(1, 6)), int(gen.integers(0, 9))
        try:
            check_case(context, n, gamma, f"random case {index} of {cases} (vocabulary {vocab})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing random case; cases before it passed.)") from None


# Task 8: bad input ---------------------------------------------------------------------------

BAD_INPUTS = {
    "n-zero": (WORKED, 0, 3, ("n must be",), "n = 0"),
    "n-float": (WORKED, 2.0, 3, ("n must be",), "n = 2.0"),
    "n-bool": (WORKED, True, 3, ("n must be",), "n = True"),
    "gamma-negative": (WORKED, 2, -1, ("gamma must be",), "gamma = -1"),
    "gamma-float": (WORKED, 2, 1.5, ("gamma must be",), "gamma = 1.5"),
    "two-dimensional": (np.array([WORKED, WORKED]), 2, 3, ("1-D",), "a 2-D array of ids"),
    "float-id": ([1, 2, 1.5, 1, 2], 2, 3, ("integer",), "an id 1.5"),
    "float-array": (np.array([1.0, 2.0, 1.0]), 1, 3, ("integer",), "a float array of ids"),
    "bool-id": ([1, True, 1], 1, 3, ("integer",), "an id True"),
    "negative-id": ([1, -2, 1, 1], 1, 3, ("negative",), "an id -2"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(8)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    context, n, gamma, mentions, problem = BAD_INPUTS[name]
    expect_value_error(ngram_draft(), context, n, gamma, mentions=mentions, problem=problem)


@pytest.mark.task(8)
def test_numpy_integers_are_valid_n_and_gamma():
    check_case(WORKED, np.int64(3), np.int32(3), "n and gamma given as numpy integers")
