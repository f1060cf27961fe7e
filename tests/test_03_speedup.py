"""Grading suite for exercise 03-speedup: expected_tokens_per_pass, walltime_speedup, optimal_gamma.

Values are compared with the exact rational value (tests/reference/ex03_reference.py) to a
relative 1e-12, which a formula that cancels near α = 1 cannot meet. The generated cases come
from fixed seeds, so the suite never changes its verdict.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex03_reference import exact_optimum, exact_speedup, exact_tokens_per_pass, relative_error
from tests.shared.cases import case_rng

EXERCISE = "03-speedup"
RELATIVE_TOLERANCE = 1e-12


def learner(name):
    return learner_function(EXERCISE, name)


def check_value(name: str, args: tuple, exact, what: str) -> float:
    call = f"{name}({', '.join(repr(a) for a in args)})"
    value = call_learner(learner(name), *args, case=f"The call: {call} ({what})")
    if type(value) is not float:
        raise GradingFailure(f"{call} must return a plain Python float; it returned {type(value).__name__} {value!r}. Use float(...).")
    error = relative_error(value, exact) if math.isfinite(value) else math.inf
    if not error <= RELATIVE_TOLERANCE:
        raise GradingFailure(
            f"{name} got {what} wrong.\n  the call: {call}\n  yours:    {value!r}\n  expected: {float(exact)!r}"
            f"\n  relative error {error:.2g}, allowed {RELATIVE_TOLERANCE:g}"
        )
    return value


def check_tokens(alpha, gamma, what):
    return check_value("expected_tokens_per_pass", (alpha, gamma), exact_tokens_per_pass(alpha, gamma), what)


def check_speedup(alpha, gamma, c, what):
    return check_value("walltime_speedup", (alpha, gamma, c), exact_speedup(alpha, gamma, c), what)


def check_optimum(alpha, c, expected: int, what: str, **kwargs):
    call = f"optimal_gamma({alpha!r}, {c!r}{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
    gamma = call_learner(learner("optimal_gamma"), alpha, c, **kwargs, case=f"The call: {call} ({what})")
    if gamma != expected or type(gamma) is not int:
        kind = "" if type(gamma) is int else f" (a {type(gamma).__name__}; it must be a plain Python int)"
        raise GradingFailure(f"optimal_gamma got {what} wrong.\n  the call: {call}\n  yours:    {gamma!r}{kind}\n  expected: {expected}")


# Task 1: the worked example ------------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_tokens_per_pass():
    assert round(check_tokens(0.8, 5, "the worked example (1 + 0.8 + ... + 0.8**5 = 3.68928)"), 6) == 3.68928


@pytest.mark.task(1)
def test_worked_example_speedup():
    assert round(check_speedup(0.8, 5, 0.05, "the worked example (3.68928 / 1.25 = 2.951424)"), 6) == 2.951424


# Task 2: the ends of the range ----------------------------------------------------------------------

@pytest.mark.parametrize("gamma", [0, 1, 5, 32])
@pytest.mark.task(2)
def test_alpha_one_gives_gamma_plus_one(gamma):
    assert check_tokens(1.0, gamma, f"α = 1 (every draft accepted: γ + 1 = {gamma + 1} tokens)") == gamma + 1
    check_speedup(1.0, gamma, 0.25, "α = 1 with c = 0.25 ((γ + 1) / (γ·0.25 + 1))")
    check_tokens(1, gamma, "α = 1 given as the int 1")


@pytest.mark.task(2)
def test_alpha_zero_gives_one_token():
    for gamma in (0, 1, 7):
        assert check_tokens(0.0, gamma, "α = 0 (every draft rejected: only the replacement)") == 1.0
    check_speedup(0.0, 4, 0.5, "α = 0 (one token for a step that cost 4·0.5 + 1)")


@pytest.mark.task(2)
def test_gamma_zero_is_plain_decoding():
    for alpha in (0.0, 0.3, 1.0):
        check_speedup(alpha, 0, 0.7, "γ = 0 (no drafts: one token per target pass, speedup 1)")


# Task 3: no catastrophic cancellation near α = 1 ------------------------------------------------

@pytest.mark.parametrize("distance", [1e-6, 1e-9, 1e-12, 2.0**-53], ids=["1e-6", "1e-9", "1e-12", "one-ulp"])
@pytest.mark.task(3)
def test_alpha_near_one_keeps_full_precision(distance):
    alpha = 1.0 - distance
    for gamma in (1, 5, 32, 200):
        check_tokens(alpha, gamma, f"α = 1 − {distance:g}, γ = {gamma} (the formula (1 − α^(γ+1)) / (1 − α) cancels here)")
        check_speedup(alpha, gamma, 0.05, f"α = 1 − {distance:g}, γ = {gamma}, c = 0.05")


# Task 4: generated cases against the exact values -------------------------------------------------

def generated_alpha(gen) -> float:
    kind = gen.integers(4)
    if kind == 0:
        return float(gen.random())
    if kind == 1:
        return float(1.0 - 10.0 ** -gen.uniform(1, 13))  # close to 1
    if kind == 2:
        return float(10.0 ** -gen.uniform(0, 12))  # close to 0
    return float(gen.choice([0.0, 0.5, 0.9, 0.99, 1.0]))


@pytest.mark.generated
@pytest.mark.task(4)
def test_generated_cases_match_the_exact_values():
    """300 cases (seed 303): α from four regimes, γ in 0..200, c in {0} ∪ [0, 2); relative 1e-12."""
    gen = case_rng(303)
    for index in range(300):
        alpha, gamma = generated_alpha(gen), int(gen.integers(0, 201))
        c = 0.0 if index % 10 == 0 else float(gen.uniform(0, 2))
        try:
            check_tokens(alpha, gamma, f"generated case {index}")
            check_speedup(alpha, gamma, c, f"generated case {index}")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated case; cases before it passed.)") from None


# Task 5: the best γ ---------------------------------------------------------------------------------

@pytest.mark.task(5)
def test_optimal_gamma_worked_example():
    check_optimum(0.8, 0.05, 8, "α = 0.8, c = 0.05 (S rises to 3.092 at γ = 8, then falls)")


@pytest.mark.task(5)
def test_optimal_gamma_ties_go_to_the_smaller_gamma():
    check_optimum(1.0, 1.0, 1, "α = 1, c = 1: every γ gives (γ + 1) / (γ + 1) = 1, a tie everywhere")
    check_optimum(0.0, 0.0, 1, "α = 0, c = 0: every γ gives 1 / 1 = 1, a tie everywhere")


@pytest.mark.task(5)
def test_optimal_gamma_searches_up_to_max_gamma_inclusive():
    check_optimum(1.0, 0.0, 32, "α = 1, c = 0 (a free draft that is always right: the largest γ allowed)")
    check_optimum(1.0, 0.0, 5, "α = 1, c = 0, max_gamma = 5", max_gamma=5)
    check_optimum(0.9, 0.01, 1, "max_gamma = 1 (the only choice)", max_gamma=1)


@pytest.mark.task(5)
def test_optimal_gamma_is_at_least_one_even_when_speculation_loses():
    check_optimum(0.05, 0.1, 1, "α = 0.05 below c = 0.1 (every γ loses to plain decoding; still γ >= 1)")
    check_optimum(0.0, 0.3, 1, "α = 0 (speedup 1 / (γ·0.3 + 1) falls with γ)")


@pytest.mark.generated
@pytest.mark.task(5)
def test_optimal_gamma_matches_the_exact_optimum_on_generated_cases():
    """200 cases (seed 304), α in [0, 1), c in [0, 0.5), max_gamma in 1..48; cases whose best γ leads
    the runner-up by less than 1e-9 (relative) are skipped, as floats cannot settle them."""
    gen = case_rng(304)
    checked = 0
    for index in range(200):
        alpha, c, max_gamma = float(gen.random()), float(gen.uniform(0, 0.5)), int(gen.integers(1, 49))
        gamma, lead = exact_optimum(alpha, c, max_gamma)
        if lead < 1e-9:
            continue
        checked += 1
        check_optimum(alpha, c, gamma, f"generated case {index}", max_gamma=max_gamma)
    assert checked > 150


# Task 6: bad input ----------------------------------------------------------------------------------

BAD_INPUTS = {
    "alpha-above-one": ("expected_tokens_per_pass", (1.5, 3), ("alpha",), "α = 1.5"),
    "alpha-negative": ("walltime_speedup", (-0.1, 3, 0.1), ("alpha",), "α = -0.1"),
    "alpha-nan": ("expected_tokens_per_pass", (math.nan, 3), ("alpha",), "α = NaN"),
    "gamma-fractional": ("expected_tokens_per_pass", (0.5, 2.5), ("integer",), "γ = 2.5"),
    "gamma-float": ("walltime_speedup", (0.5, 3.0, 0.1), ("integer",), "γ = 3.0 (a float)"),
    "gamma-negative": ("expected_tokens_per_pass", (0.5, -1), ("negative",), "γ = -1"),
    "cost-negative": ("walltime_speedup", (0.5, 3, -0.1), ("cost", "negative"), "c = -0.1"),
    "cost-nan": ("walltime_speedup", (0.5, 3, math.nan), ("cost",), "c = NaN"),
    "cost-infinite": ("optimal_gamma", (0.5, math.inf), ("cost",), "c = inf"),
    "optimal-alpha-above-one": ("optimal_gamma", (1.2, 0.1), ("alpha",), "α = 1.2"),
    "max-gamma-zero": ("optimal_gamma", (0.5, 0.1, 0), ("max_gamma",), "max_gamma = 0"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(6)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    function, args, mentions, problem = BAD_INPUTS[name]
    expect_value_error(learner(function), *args, mentions=mentions, problem=problem)


@pytest.mark.task(6)
def test_numpy_numbers_are_accepted():
    check_tokens(np.float64(0.8), np.int64(5), "α a numpy float64 and γ a numpy int64")
    check_optimum(np.float64(0.8), np.float64(0.05), 8, "numpy arguments", max_gamma=np.int64(32))
