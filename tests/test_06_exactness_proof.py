"""Grading suite for exercise 06-exactness-proof: output_distribution(p_row, q_row, rule).

Values are compared with an independent reference that enumerates the paths
(tests/reference/ex06_reference.py) to 1e-12. Property tests over generated pairs use fixed
seeds. Two chi-square tests with fixed seeds check the learner's distributions against
simulations of the mechanisms themselves, so the formula and the sampler are seen to agree.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex06_reference import reference_distribution, simulate_first_tokens
from tests.shared.as_given import as_given
from tests.shared.cases import PAIR_STYLES as STYLES
from tests.shared.cases import case_rng, random_pair
from tests.shared.statistics import chi_square_test

EXERCISE = "06-exactness-proof"
TOLERANCE = 1e-12
P0, Q0 = [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]  # position 0 of exercise 01's example
RULES = ("exact", "resample_from_target")


def output_distribution():
    return learner_function(EXERCISE, "output_distribution")


def row(values) -> str:
    return np.array2string(np.asarray(values, dtype=float), precision=10, separator=", ", threshold=20)


def check(p, q, rule: str, what: str, expected=None) -> np.ndarray:
    shown_p, shown_q = as_given(p), as_given(q)  # whatever the call does to them

    def call() -> str:  # formatted only for a failure: formatting every passing call costs more than the call
        return f"output_distribution(p, q, {rule!r}) with\n  p = {row(shown_p)}\n  q = {row(shown_q)}"

    result = call_learner(output_distribution(), p, q, rule, case=lambda: f"The call: {call()}")
    if expected is None:
        expected = reference_distribution(p, q, rule)
    if not isinstance(result, np.ndarray) or result.shape != expected.shape or result.dtype != np.float64:
        got = f"an array of shape {result.shape} and dtype {result.dtype}" if isinstance(result, np.ndarray) else f"{type(result).__name__} {result!r}"
        raise GradingFailure(f"output_distribution must return a float64 array of shape {expected.shape}; it returned {got} ({what}).\nThe call: {call()}")
    if not np.all(np.abs(result - expected) <= TOLERANCE):  # NaN fails too
        alpha = float(np.minimum(p, q).sum())
        raise GradingFailure(
            f"output_distribution got {what} wrong.\n  the call: {call()}\n"
            f"  α = Σ min(p, q) = {alpha:.6g}, min(p, q) = {row(np.minimum(p, q))}\n"
            f"  yours:    {row(result)} (sum {float(result.sum())!r})\n  expected: {row(expected)} (sum {float(expected.sum())!r}, to {TOLERANCE:g})\n"
            "P(x) = min(p(x), q(x)) + (1 − α)·replacement(x); the replacement is the residual max(0, p − q) "
            "normalised for 'exact', p normalised for 'resample_from_target'."
        )
    return result


# Task 1: the worked example -------------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_exact():
    check(P0, Q0, "exact", "the worked example (0.3 of rejection mass fills [0, 0.2, 0.1])", expected=np.array(P0))


@pytest.mark.task(1)
def test_worked_example_resample_from_target():
    check(P0, Q0, "resample_from_target", "the worked example (min(p, q) + 0.3·p)", expected=np.array([0.26, 0.45, 0.29]))


# Task 2: the exact rule gives p -------------------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 10, 100])
@pytest.mark.task(2)
def test_exact_rule_gives_p_on_generated_pairs(vocab):
    """Property: for 250 pairs per vocabulary size (seed 600 + V, every style), "exact" returns p to 1e-12."""
    gen = case_rng(600 + vocab)
    for index in range(250):
        style = STYLES[index % len(STYLES)]
        p, q = random_pair(gen, vocab, style)
        try:
            check(p, q, "exact", f"generated pair {index} (V = {vocab}, style {style!r}): the result must be p", expected=p)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated pair; pairs before it passed.)") from None


# Task 3: the shortcut and its bias ----------------------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 10, 100])
@pytest.mark.task(3)
def test_resample_from_target_on_generated_pairs(vocab):
    """Property: for 250 pairs per vocabulary size (seed 650 + V), the shortcut's distribution
    equals the path-by-path reference q·min(1, p/q) + (1 − α)·p to 1e-12."""
    gen = case_rng(650 + vocab)
    for index in range(250):
        style = STYLES[index % len(STYLES)]
        p, q = random_pair(gen, vocab, style)
        try:
            check(p, q, "resample_from_target", f"generated pair {index} (V = {vocab}, style {style!r})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated pair; pairs before it passed.)") from None


@pytest.mark.task(3)
def test_a_draft_certain_of_one_token():
    q = [0.0, 1.0, 0.0]  # the draft always proposes token 1, accepted with probability p(1) = 0.5
    check(P0, q, "exact", "q one-hot at token 1 (exact: p itself)", expected=np.array(P0))
    check(P0, q, "resample_from_target", "q one-hot at token 1 (0.5 accepted, then 0.5·p)", expected=np.array([0.1, 0.75, 0.15]))


# Task 4: the edge cases ---------------------------------------------------------------------------

@pytest.mark.parametrize("rule", RULES)
@pytest.mark.task(4)
def test_identical_rows_give_p(rule):
    check(P0, P0, rule, "p = q (everything accepted; the residual is empty)", expected=np.array(P0))


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.task(4)
def test_disjoint_supports_give_p(rule):
    p, q = [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.25, 0.75]
    check(p, q, rule, "disjoint supports (everything rejected; the residual is p)", expected=np.array(p))


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.task(4)
def test_a_token_neither_model_can_emit_stays_at_zero(rule):
    p, q = [0.5, 0.0, 0.5], [0.25, 0.0, 0.75]  # token 1: p = q = 0 (0/0 if you divide)
    result = check(p, q, rule, "a token with p = q = 0 (it can never come out)")
    if result[1] != 0.0:
        raise GradingFailure(f"output_distribution(p, q, {rule!r}) gives token 1 probability {result[1]!r}; p = q = 0 there.")


@pytest.mark.task(4)
def test_a_residual_of_rounding_noise_falls_back_to_p():
    p = np.array([0.3, 0.3, 0.4])
    q = np.array([0.3 + 3e-7, 0.3, 0.4 - 3e-7 + 1e-16])  # residual mass about 3e-7 > 1e-12
    check(p, q, "exact", "a residual of 3e-7 (above 1e-12: use it)")
    q = np.array([0.3 + 4e-13, 0.3, 0.4 - 4e-13])
    check(p, q, "exact", "a residual of 4e-13 (at most 1e-12: the replacement is p)")


# Task 5: inputs and outputs ----------------------------------------------------------------------------

@pytest.mark.parametrize("rule", RULES)
@pytest.mark.task(5)
def test_output_sums_to_one_even_for_rows_within_the_tolerance(rule):
    p, q = [0.2, 0.5, 0.3000005], [0.5, 0.3, 0.2000004]  # off by 5e-7 and 4e-7: accepted
    result = check(p, q, rule, "rows off by 5e-7 and 4e-7 (within 1e-6; rejection mass 1 − α, replacement normalised)")
    if not abs(result.sum() - 1.0) <= TOLERANCE:
        raise GradingFailure(f"output_distribution(p, q, {rule!r}) sums to {result.sum()!r}; it must sum to 1 (to {TOLERANCE:g}).")


@pytest.mark.task(5)
def test_lists_and_arrays_give_the_same_and_inputs_are_not_modified():
    p, q = np.array(P0), np.array(Q0)
    for rule in RULES:
        check(p, q, rule, "numpy inputs")
    if not (np.array_equal(p, P0) and np.array_equal(q, Q0)):
        raise GradingFailure("output_distribution changed its input arrays in place; work on copies.")


# Task 6: the formulas agree with the mechanisms -----------------------------------------------------

STAT_P = np.array([0.05, 0.10, 0.15, 0.30, 0.40])
STAT_Q = np.array([0.40, 0.30, 0.15, 0.10, 0.05])
STAT_RUNS = 5_000
STAT_ALPHA = 1e-3
STAT_SEEDS = {"exact": 6061, "resample_from_target": 6062}


@pytest.mark.statistical
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.task(6)
def test_distribution_matches_a_simulation_of_the_rule(rule):
    """Chi-square goodness of fit of simulated first tokens against YOUR output_distribution.

    The simulation runs the mechanism itself: for "exact" exercise 01's reference verify step, for
    "resample_from_target" a draft from q, the accept test, and on rejection a sample from p.
    Statistic: Pearson's chi-square over the 5 tokens (4 degrees of freedom), 5,000 runs, fixed
    seed per rule. Threshold: fail when the p-value is below 1e-3. The reference clears it with
    room to spare, and a distribution that is off by the shortcut's bias (TV 0.165 here) fails it
    far below (tests/maintainer/test_margins_chi_square.py, tests/mutants/ex06_exactness_proof.toml).
    """
    result = check(STAT_P, STAT_Q, rule, "the statistical test's pair")
    counts = simulate_first_tokens(STAT_P, STAT_Q, rule, STAT_RUNS, STAT_SEEDS[rule])
    statistic, df, pvalue, impossible = chi_square_test(counts, result)
    if pvalue < STAT_ALPHA:
        raise GradingFailure(
            f"Simulating the {rule!r} rule does not produce the distribution output_distribution returns.\n"
            f"  runs: {STAT_RUNS}, p = {STAT_P.tolist()}, q = {STAT_Q.tolist()}\n"
            f"  simulated frequencies: {(counts / STAT_RUNS).round(4).tolist()}\n"
            f"  yours:                 {result.round(4).tolist()}\n"
            + (f"  tokens your distribution gives probability 0 came out: {impossible}\n" if impossible else "")
            + f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}"
        )


# Task 7: bad input -----------------------------------------------------------------------------

BAD_INPUTS = {
    "unknown-rule": (P0, Q0, "residual", ("rule",), "rule 'residual'"),
    "rule-in-capitals": (P0, Q0, "Exact", ("rule",), "rule 'Exact' (the names are case-sensitive)"),
    "rule-not-a-string": (P0, Q0, None, ("rule",), "rule None"),
    "different-lengths": (P0, [0.5, 0.5], "exact", ("shape",), "p with 3 tokens and q with 2"),
    "stacked-rows": ([P0, P0], [Q0, Q0], "exact", ("shape",), "2-D rows (one position at a time)"),
    "empty-rows": ([], [], "exact", ("shape",), "empty rows"),
    "negative-probability": ([0.6, 0.5, -0.1], Q0, "exact", ("negative",), "p = [0.6, 0.5, -0.1]"),
    "nan-probability": (P0, [np.nan, 0.5, 0.5], "resample_from_target", ("NaN",), "a NaN in q"),
    "row-summing-to-1.1": (P0, [0.5, 0.4, 0.2], "exact", ("sum to 1",), "q summing to 1.1"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(7)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, rule, mentions, problem = BAD_INPUTS[name]
    expect_value_error(output_distribution(), p, q, rule, mentions=mentions, problem=problem)
