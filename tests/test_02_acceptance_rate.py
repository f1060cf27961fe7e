"""Grading suite for exercise 02-acceptance-rate: acceptance_rate(p, q).

Values are compared with an independent reference (tests/reference/ex02_reference.py), which
computes α as the chance that a drafted token survives exercise 01's accept test, to 1e-12.
The property tests run over thousands of generated pairs from fixed seeds, so they never flake.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex02_reference import acceptance_probability, total_variation
from tests.shared.as_given import as_given
from tests.shared.cases import PAIR_STYLES as STYLES
from tests.shared.cases import case_rng, random_pair

EXERCISE = "02-acceptance-rate"
TOLERANCE = 1e-12

P0, Q0 = [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]  # position 0 of exercise 01's example
P1, Q1 = [0.1, 0.1, 0.8], [0.2, 0.2, 0.6]  # position 1


def acceptance_rate():
    return learner_function(EXERCISE, "acceptance_rate")


def rows(value) -> str:
    return np.array2string(np.asarray(value, dtype=float), precision=10, separator=", ", threshold=20)


def call(p, q):
    shown_p, shown_q = as_given(p), as_given(q)  # whatever the call does to them
    return call_learner(acceptance_rate(), p, q,
                        case=lambda: f"The call: acceptance_rate(p, q) with\n  p = {rows(shown_p)}\n  q = {rows(shown_q)}")


def check_single(p, q, expected: float, what: str) -> float:
    alpha = call(p, q)
    if type(alpha) is not float:
        raise GradingFailure(
            f"acceptance_rate on one pair of rows must return a plain Python float; it returned {type(alpha).__name__} "
            f"{alpha!r} ({what}). Use float(...)."
        )
    if not abs(alpha - expected) <= TOLERANCE:
        raise GradingFailure(
            f"acceptance_rate got {what} wrong.\n  p = {rows(p)}\n  q = {rows(q)}\n"
            f"  min(p, q) = {rows(np.minimum(p, q))}\n  yours:    {alpha!r}\n  expected: {expected!r} (to {TOLERANCE:g})"
        )
    return alpha


# Task 1: the worked example -----------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_one_pair():
    check_single(P0, Q0, 0.7, "the worked example (α = 0.2 + 0.3 + 0.2)")
    check_single(P1, Q1, 0.8, "position 1 of exercise 01's example (α = 0.1 + 0.1 + 0.6)")


@pytest.mark.task(1)
def test_worked_example_stacked():
    alpha = call([P0, P1], [Q0, Q1])
    if not isinstance(alpha, np.ndarray) or alpha.shape != (2,) or not np.allclose(alpha, [0.7, 0.8], rtol=0, atol=TOLERANCE):
        raise GradingFailure(
            f"acceptance_rate on two stacked rows should return array([0.7, 0.8]) (shape (2,)); it returned {alpha!r}"
        )


# Task 2: α = Σ min(p, q) = 1 − TV(p, q), on many generated pairs ------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 10, 100])
@pytest.mark.task(2)
def test_alpha_is_one_minus_total_variation_on_generated_pairs(vocab):
    """Property: for 250 pairs per vocabulary size (seed 200 + V, every style of pair),
    α equals 1 − ½Σ|p − q| and the chance a drafted token survives the accept test, to 1e-12."""
    gen = case_rng(200 + vocab)
    for index in range(250):
        p, q = random_pair(gen, vocab, STYLES[index % len(STYLES)])
        expected = acceptance_probability(p, q)
        one_minus_tv = 1.0 - total_variation(p, q)
        assert abs(expected - one_minus_tv) < TOLERANCE  # the reference agrees with itself
        try:
            check_single(p, q, expected, f"generated pair {index} (V = {vocab}, style {STYLES[index % len(STYLES)]!r}); 1 − TV = {one_minus_tv!r}")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated pair; pairs before it passed.)") from None


@pytest.mark.generated
@pytest.mark.task(2)
def test_alpha_is_symmetric_and_between_zero_and_one():
    """Property: α(p, q) = α(q, p) exactly and 0 <= α <= 1, for 200 stacked batches (seed 2024)."""
    gen = case_rng(2024)
    for index in range(200):
        pairs = [random_pair(gen, 7, style) for style in STYLES]
        p, q = np.stack([a for a, _ in pairs]), np.stack([b for _, b in pairs])
        forward, backward = call(p, q), call(q, p)
        if not np.array_equal(forward, backward):
            raise GradingFailure(f"acceptance_rate(p, q) = {forward!r} but acceptance_rate(q, p) = {backward!r}: Σ min(p, q) is symmetric.")
        if not np.all((forward >= -TOLERANCE) & (forward <= 1 + TOLERANCE)):
            raise GradingFailure(f"acceptance_rate returned {forward!r}: an acceptance rate lies in [0, 1].")


# Task 3: the edge cases ----------------------------------------------------------------------------

@pytest.mark.task(3)
def test_identical_rows_are_always_accepted():
    for p in ([1.0], [0.5, 0.5], P0, np.full(50, 0.02)):
        check_single(p, p, 1.0, "p = q (the draft proposes exactly like the target: α = 1)")


@pytest.mark.task(3)
def test_disjoint_supports_are_never_accepted():
    check_single([0.5, 0.5, 0.0], [0.0, 0.0, 1.0], 0.0, "p and q with disjoint supports (α = 0)")
    check_single([1.0, 0.0], [0.0, 1.0], 0.0, "one-hot rows on different tokens (α = 0)")


@pytest.mark.task(3)
def test_a_draft_certain_of_one_token_is_accepted_with_its_target_probability():
    for token in range(3):
        q = np.eye(3)[token]
        check_single(P0, q, P0[token], f"q one-hot at token {token} (α = p[{token}])")


# Task 4: shapes and types ----------------------------------------------------------------------------

def expect_array(alpha, shape, expected, what):
    if not isinstance(alpha, np.ndarray) or alpha.shape != shape:
        kind = f"an array of shape {alpha.shape}" if isinstance(alpha, np.ndarray) else f"{type(alpha).__name__} {alpha!r}"
        raise GradingFailure(f"acceptance_rate on {what} should return an array of shape {shape}; it returned {kind}.")
    if not np.allclose(alpha, expected, rtol=0, atol=TOLERANCE):
        raise GradingFailure(f"acceptance_rate on {what}:\n  yours:    {alpha!r}\n  expected: {np.asarray(expected)!r}")


@pytest.mark.generated
@pytest.mark.task(4)
def test_stacked_rows_keep_leading_dimensions():
    gen = case_rng(7)
    pairs = [random_pair(gen, 5, STYLES[i % len(STYLES)]) for i in range(6)]
    p = np.stack([a for a, _ in pairs]).reshape(2, 3, 5)
    q = np.stack([b for _, b in pairs]).reshape(2, 3, 5)
    expected = np.array([acceptance_probability(a, b) for a, b in pairs]).reshape(2, 3)
    expect_array(call(p, q), (2, 3), expected, "rows stacked in shape (2, 3, 5)")
    expect_array(call(p[0], q[0]), (3,), expected[0], "rows stacked in shape (3, 5)")


@pytest.mark.task(4)
def test_a_single_stacked_row_stays_an_array():
    expect_array(call([P0], [Q0]), (1,), [0.7], "one row stacked in shape (1, 3)")


@pytest.mark.task(4)
def test_no_rows_give_an_empty_array():
    expect_array(call(np.empty((0, 4)), np.empty((0, 4))), (0,), np.empty(0), "zero rows (shape (0, 4))")


@pytest.mark.task(4)
def test_does_not_modify_its_inputs():
    p, q = np.array([P0, P1]), np.array([Q0, Q1])
    call(p, q)
    if not (np.array_equal(p, [P0, P1]) and np.array_equal(q, [Q0, Q1])):
        raise GradingFailure("acceptance_rate changed its input arrays in place; work on copies.")


# Task 5: bad input -------------------------------------------------------------------------------

BAD_INPUTS = {
    "different-vocabularies": (P0, [0.5, 0.5], ("shape",), "p with 3 tokens and q with 2"),
    "one-row-against-stacked-rows": (P0, [Q0, Q1], ("shape",), "p of shape (3,) against q of shape (2, 3) (no broadcasting)"),
    "scalars": (1.0, 1.0, ("shape",), "0-d inputs (no vocabulary axis)"),
    "empty-vocabulary": ([], [], ("shape",), "rows over an empty vocabulary (V = 0)"),
    "negative-probability": ([0.6, 0.5, -0.1], Q0, ("negative",), "p = [0.6, 0.5, -0.1]"),
    "nan-in-a-stacked-row": ([P0, P1], [Q0, [np.nan, 0.4, 0.6]], ("NaN",), "a NaN in the second row of q"),
    "row-summing-to-1.1": (P0, [0.5, 0.4, 0.2], ("sum to 1",), "q summing to 1.1"),
    "row-off-by-2e-6": ([[0.2, 0.5, 0.300002]], [Q0], ("sum to 1",), "a p row summing to 1.000002"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(5)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, mentions, problem = BAD_INPUTS[name]
    expect_value_error(acceptance_rate(), p, q, mentions=mentions, problem=problem)


@pytest.mark.task(5)
def test_rows_within_the_tolerance_are_accepted():
    p = [0.2, 0.5, 0.3000005]  # sums to 1 + 5e-7, inside the 1e-6 tolerance
    check_single(p, Q0, 0.7, "a p row summing to 1 + 5e-7 (within the 1e-6 tolerance, taken as it is)")
