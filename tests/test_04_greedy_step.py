"""Grading suite for exercise 04-greedy-step: greedy_step(p, q, draft).

Every case is compared with an independent reference (tests/reference/ex04_reference.py) and,
for the generated cases, with exercise 01's reference run on one-hot rows: greedy verification is
the exact rule at temperature zero. Generated cases come from fixed seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex01_reference import reference_trace
from tests.reference.ex01_report import describe_case
from tests.reference.ex04_reference import first_maximum, reference_greedy
from tests.shared.as_given import as_given
from tests.shared.cases import case_rng

EXERCISE = "04-greedy-step"

P = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]  # argmaxes 1, 2, 2
Q = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]


def greedy_step():
    return learner_function(EXERCISE, "greedy_step")


def describe(p, q, draft) -> str:
    return describe_case(p, q, draft, []).replace("\n  stream     = []", "")  # greedy draws nothing


def check_case(p, q, draft, what: str) -> list[int]:
    shown = as_given(p), as_given(q), list(draft)  # as given, whatever the call does to them
    tokens = call_learner(greedy_step(), p, q, draft, case=lambda: describe(*shown))
    expected, reasons = reference_greedy(p, q, draft)
    if tokens != expected:
        raise GradingFailure(
            f"greedy_step got {what} wrong.\n\n{describe(p, q, draft)}\n\n"
            f"  yours:     {tokens!r}\n  expected:  {expected!r}\n\nThe reference's reasoning:\n" + "\n".join(reasons)
        )
    if not all(type(token) is int for token in tokens):
        kinds = sorted({type(token).__name__ for token in tokens})
        raise GradingFailure(f"greedy_step must return plain Python ints; the list holds {kinds}. Use int(token).")
    return tokens


# Task 1: the worked example ---------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_all_accepted():
    assert check_case(P, Q, [1, 2], "the worked example (both drafts agree, bonus argmax p[2])") == [1, 2, 2]


@pytest.mark.task(1)
def test_worked_example_disagreement():
    assert check_case(P, Q, [0, 2], "the worked example (draft 0 disagrees with argmax p[0] = 1)") == [1]


# Task 2: ties go to the lowest index -------------------------------------------------------------

@pytest.mark.task(2)
def test_a_tie_for_the_bonus_token_goes_to_the_lowest_index():
    assert check_case([[0.4, 0.4, 0.2]], [], [], "a tie in p[0] between tokens 0 and 1 (γ = 0)") == [0]
    assert check_case([[0.2, 0.4, 0.4]], np.empty((0, 3)), [], "a tie in p[0] between tokens 1 and 2 (γ = 0)") == [1]


@pytest.mark.task(2)
def test_a_tie_at_a_draft_position_goes_to_the_lowest_index():
    p = [[0.1, 0.45, 0.45], [0.5, 0.25, 0.25]]
    q = [[0.2, 0.2, 0.6]]
    assert check_case(p, q, [2], "a draft on the higher of two tied tokens (argmax p[0] = 1)") == [1]
    assert check_case(p, q, [1], "a draft on the lower of two tied tokens (accepted)") == [1, 0]


# Task 3: the number of tokens ---------------------------------------------------------------------

P4 = [[0.1, 0.2, 0.3, 0.4], [0.4, 0.1, 0.2, 0.3], [0.3, 0.4, 0.1, 0.2], [0.2, 0.3, 0.4, 0.1], [0.1, 0.1, 0.1, 0.7]]
Q4 = [[0.25] * 4] * 4
ARGMAX4 = [3, 0, 1, 2, 3]


@pytest.mark.task(3)
def test_all_accepted_adds_the_bonus_token_from_the_last_row():
    assert check_case(P4, Q4, ARGMAX4[:4], "all four drafts agree, bonus argmax p[4] = 3") == ARGMAX4


@pytest.mark.parametrize("position", range(4))
@pytest.mark.task(3)
def test_a_disagreement_at_each_position_stops_there(position):
    draft = ARGMAX4[:4]
    draft[position] = (draft[position] + 1) % 4
    tokens = check_case(P4, Q4, draft, f"a disagreement at position {position}")
    assert len(tokens) == position + 1


@pytest.mark.task(3)
def test_gamma_zero_emits_argmax_p0():
    assert check_case([[0.2, 0.3, 0.5]], [], [], "γ = 0 (no drafts: argmax p[0])") == [2]


# Task 4: the target decides, not the draft --------------------------------------------------------

@pytest.mark.task(4)
def test_the_argmax_of_p_decides_not_q():
    p = [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]]
    q = [[0.1, 0.8, 0.1]]  # the draft's own favourite is token 1
    assert check_case(p, q, [1], "a draft on argmax q[0] = 1 while argmax p[0] = 0") == [0]
    assert check_case(p, q, [0], "a draft on argmax p[0] = 0 that q gives only 0.1") == [0, 2]
    assert check_case(p, q, [2], "a draft on token 2, where p = q = 0.1 (exercise 01 would accept it; greedy must not)") == [0]


# Task 5: greedy is exercise 01 with one-hot rows, on generated cases ---------------------------------

def generated_case(gen, vocab: int):
    gamma = int(gen.integers(0, 7))
    p = gen.dirichlet(np.ones(vocab), size=gamma + 1)
    if gen.random() < 0.3:  # coarse rows: ties among the maxima are common
        p = np.round(p * 4) + 1e-3
        p /= p.sum(axis=1, keepdims=True)
    q = gen.dirichlet(np.ones(vocab), size=gamma).reshape(gamma, vocab)
    draft = [first_maximum(row) if gen.random() < 0.8 else int(gen.integers(vocab)) for row in p[:gamma]]
    return p, q, draft


def one_hot(tokens, vocab):
    return np.eye(vocab)[list(tokens)].reshape(len(tokens), vocab)


@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 10, 50])
@pytest.mark.task(5)
def test_generated_cases_match_exercise_01_on_one_hot_rows(vocab):
    """Property: 300 cases per vocabulary size (seed 400 + V). Exercise 01's rule on the one-hot
    rows onehot(argmax p) and onehot(draft) gives the same tokens for ANY uniforms (here 0.5s)."""
    gen = case_rng(400 + vocab)
    for index in range(300):
        p, q, draft = generated_case(gen, vocab)
        exact_rule = reference_trace(one_hot([first_maximum(row) for row in p], vocab), one_hot(draft, vocab), draft, [0.5] * 8)
        try:
            tokens = check_case(p, q, draft, f"generated case {index} (V = {vocab})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated case; cases before it passed.)") from None
        assert tokens == exact_rule.tokens


# Task 6: inputs and outputs ----------------------------------------------------------------------------

@pytest.mark.task(6)
def test_accepts_numpy_arrays_and_returns_plain_ints():
    assert check_case(np.array(P), np.array(Q), np.array([1, 2]), "numpy inputs") == [1, 2, 2]


@pytest.mark.task(6)
def test_does_not_modify_its_inputs():
    p, q, draft = np.array(P), np.array(Q), np.array([0, 2])
    call_learner(greedy_step(), p, q, draft, case="(numpy inputs)")
    if not (np.array_equal(p, P) and np.array_equal(q, Q) and list(draft) == [0, 2]):
        raise GradingFailure("greedy_step changed its input arrays in place; work on copies.")


# Task 7: bad input ---------------------------------------------------------------------------------

BAD_INPUTS = {
    "p-with-too-few-rows": (P[:2], Q, [1, 2], ("shape",), "p with 2 rows for a draft of 2 tokens"),
    "q-with-another-vocabulary": (P, [[0.5, 0.5], [0.5, 0.5]], [1, 0], ("shape",), "q with 2 columns where p has 3"),
    "token-past-the-vocabulary": (P, Q, [1, 3], ("out of range",), "draft token 3 in a vocabulary of 3"),
    "negative-token": (P, Q, [-1, 2], ("out of range",), "draft token -1"),
    "token-the-draft-could-not-propose": (P, [[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]], [2, 2], ("zero probability",), "q[0, 2] = 0 for drafted token 2"),
    "negative-probability": ([[0.6, 0.5, -0.1]] + P[1:], Q, [1, 2], ("negative",), "p[0, 2] = -0.1"),
    "nan-probability": (P, [[0.5, 0.3, 0.2], [np.nan, 0.4, 0.6]], [1, 2], ("NaN",), "a NaN in q"),
    "row-summing-to-1.1": (P, [[0.5, 0.4, 0.2], [0.2, 0.2, 0.6]], [1, 2], ("sum to 1",), "q row 0 summing to 1.1"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(7)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, draft, mentions, problem = BAD_INPUTS[name]
    expect_value_error(greedy_step(), p, q, draft, mentions=mentions, problem=problem)
