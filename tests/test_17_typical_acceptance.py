"""Grading suite for exercise 17-typical-acceptance: typical_threshold, typical_acceptance_rate,
typical_output_distribution, total_variation.

Everything here is a number computed exactly, so every value is compared with an independent
reference (tests/reference/ex17_reference.py, path by path) to 1e-12: on fixed cases built to
sit on the rule's edges (which of ε and δ·exp(−H) binds, p(x) equal to the threshold, ties for
the greedy token, zeros in p) and on generated pairs over a grid of settings.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex17_bad_inputs import BAD_DISTRIBUTION_CALLS, P, Q  # P, Q: the worked example
from tests.reference.ex17_reference import (
    closest_to_threshold,
    reference_acceptance_rate,
    reference_distribution,
    reference_entropy,
    reference_threshold,
    reference_total_variation,
)
from tests.reference.ex17_report import greedy_at_argmax_q
from tests.shared.as_given import as_given
from tests.shared.cases import PAIR_STYLES, case_rng, random_pair

EXERCISE = "17-typical-acceptance"
TOLERANCE = 1e-12
ON_REJECT = ("greedy", "sample")



def learner(name):
    return learner_function(EXERCISE, name)


def row(values) -> str:
    return np.array2string(np.asarray(values, dtype=float), precision=10, separator=", ", threshold=20)


def settings_text(epsilon, delta) -> str:
    return f"epsilon={epsilon!r}, delta={delta!r}"


def explain(p, epsilon, delta) -> str:
    h = reference_entropy(p)
    tau = reference_threshold(p, epsilon, delta)
    return (f"  H(p) = {h:.12g} nats, δ·exp(−H) = {delta * math.exp(-h):.12g}, threshold = min(ε, δ·exp(−H)) = {tau:.12g}\n"
            f"  kept tokens (p(x) > threshold): {[x for x, v in enumerate(p) if v > tau]}")


def check_number(name, args, expected, what, p, epsilon, delta) -> float:
    shown = [as_given(a) for a in args]  # whatever the call does to them

    def call() -> str:  # formatted only for a failure
        return f"{name}({', '.join(row(a) for a in shown)}, {settings_text(epsilon, delta)})"

    result = call_learner(learner(name), *args, epsilon=epsilon, delta=delta, case=lambda: f"The call: {call()}")
    if not isinstance(result, float):
        raise GradingFailure(f"{name} must return a Python float; it returned {type(result).__name__} {result!r} ({what}).\nThe call: {call()}")
    if not abs(result - expected) <= TOLERANCE:
        raise GradingFailure(f"{name} got {what} wrong.\n  the call: {call()}\n{explain(p, epsilon, delta)}\n"
                             f"  yours:    {result!r}\n  expected: {expected!r} (to {TOLERANCE:g})")
    return result


def check_threshold(p, what, epsilon=0.09, delta=0.3, expected=None) -> float:
    expected = reference_threshold(p, epsilon, delta) if expected is None else expected
    return check_number("typical_threshold", (p,), expected, what, p, epsilon, delta)


def check_rate(p, q, what, epsilon=0.09, delta=0.3, expected=None) -> float:
    expected = reference_acceptance_rate(p, q, epsilon, delta) if expected is None else expected
    return check_number("typical_acceptance_rate", (p, q), expected, what, p, epsilon, delta)


def check_distribution(p, q, on_reject, what, epsilon=0.09, delta=0.3, expected=None) -> np.ndarray:
    shown_p, shown_q = as_given(p), as_given(q)  # whatever the call does to them

    def call() -> str:  # formatted only for a failure
        return f"typical_output_distribution({row(shown_p)}, {row(shown_q)}, {on_reject!r}, {settings_text(epsilon, delta)})"

    result = call_learner(learner("typical_output_distribution"), p, q, on_reject, epsilon=epsilon, delta=delta,
                          case=lambda: f"The call: {call()}")
    expected = reference_distribution(p, q, on_reject, epsilon, delta) if expected is None else np.asarray(expected)
    if not isinstance(result, np.ndarray) or result.shape != expected.shape or result.dtype != np.float64:
        got = f"an array of shape {result.shape} and dtype {result.dtype}" if isinstance(result, np.ndarray) else f"{type(result).__name__} {result!r}"
        raise GradingFailure(f"typical_output_distribution must return a float64 array of shape {expected.shape}; it returned {got} ({what}).\nThe call: {call()}")
    if not np.all(np.abs(result - expected) <= TOLERANCE):  # NaN fails too
        replacement = "the target's greedy token argmax p" if on_reject == "greedy" else "a sample from p"
        raise GradingFailure(
            f"typical_output_distribution got {what} wrong.{greedy_at_argmax_q(result, p, q, on_reject, epsilon, delta)}"
            f"\n  the call: {call()}\n{explain(p, epsilon, delta)}\n"
            f"  yours:    {row(result)} (sum {float(result.sum())!r})\n  expected: {row(expected)} (to {TOLERANCE:g})\n"
            f"P(x) = q(x)·[p(x) > threshold] + (1 − acceptance rate)·replacement(x), the replacement being {replacement}."
        )
    return result


def check_tv(a, b, what, expected=None) -> float:
    shown_a, shown_b = as_given(a), as_given(b)  # whatever the call does to them

    def call() -> str:  # formatted only for a failure
        return f"total_variation({row(shown_a)}, {row(shown_b)})"

    result = call_learner(learner("total_variation"), a, b, case=lambda: f"The call: {call()}")
    expected = reference_total_variation(a, b) if expected is None else expected
    if not isinstance(result, float) or not abs(result - expected) <= TOLERANCE:
        raise GradingFailure(f"total_variation got {what} wrong.\n  the call: {call()}\n  yours:    {result!r}\n"
                             f"  expected: {expected!r} (half the sum of |a − b|, a Python float)")
    return result


# Task 1: the worked example ----------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_threshold_and_rate():
    check_threshold(P, "the worked example (ε = 0.09 binds: δ·exp(−H) ≈ 0.126)", expected=0.09)
    check_rate(P, Q, "the worked example (tokens 0 and 1 kept: 0.25 + 0.25)", expected=0.5)


@pytest.mark.task(1)
def test_worked_example_distributions():
    greedy = check_distribution(P, Q, "greedy", "the worked example, greedy on rejection", expected=[0.75, 0.25, 0, 0])
    sample = check_distribution(P, Q, "sample", "the worked example, a sample from p on rejection", expected=[0.6, 0.35, 0.03, 0.02])
    check_tv(greedy, P, "TV(greedy output, p) in the worked example", expected=0.1)
    check_tv(sample, P, "TV(sampled output, p) in the worked example", expected=0.15)


# Task 2: the threshold ----------------------------------------------------------------------------

@pytest.mark.task(2)
def test_threshold_where_the_entropy_term_binds():
    p = [0.25] * 4  # H = ln 4, so δ·exp(−H) = 0.3 / 4 = 0.075 < 0.09
    check_threshold(p, "a uniform p over 4 tokens (δ·exp(−ln 4) = 0.075 binds)", expected=0.075)


@pytest.mark.task(2)
def test_threshold_entropy_in_nats():
    p = [0.5, 0.3, 0.2]
    check_threshold(p, "p = [0.5, 0.3, 0.2] with δ = 0.1 (the entropy term binds; H in nats)", delta=0.1)


@pytest.mark.task(2)
def test_threshold_with_zeros_in_p():
    p = [0.0, 0.5, 0.0, 0.5]  # H = ln 2: a token with p = 0 adds 0 · log 0 = 0
    check_threshold(p, "p with zeros (0 · log 0 counts as 0; H = ln 2, δ·exp(−H) = 0.15)", epsilon=0.2, expected=0.15)


@pytest.mark.task(2)
def test_threshold_of_a_certain_target():
    check_threshold([0.0, 1.0, 0.0], "a one-hot p (H = 0: threshold min(ε, δ))", epsilon=0.5, delta=0.3, expected=0.3)


# Task 3: the accept test and the acceptance rate ------------------------------------------------------

@pytest.mark.task(3)
def test_a_token_exactly_at_the_threshold_is_rejected():
    p, q = [0.5, 0.25, 0.25], [0.2, 0.5, 0.3]  # ε = 0.25 binds (δ = 10): tokens 1 and 2 sit on it
    check_rate(p, q, "p(x) = threshold = 0.25 for tokens 1 and 2 (p(x) > threshold is strict)", epsilon=0.25, delta=10.0, expected=0.2)
    check_distribution(p, q, "greedy", "p(x) = threshold (strict: rejected)", epsilon=0.25, delta=10.0, expected=[1.0, 0, 0])


@pytest.mark.task(3)
def test_the_rate_weights_kept_tokens_by_q():
    p, q = [0.6, 0.3, 0.05, 0.05], [0.1, 0.2, 0.3, 0.4]
    check_rate(p, q, "a draft that mostly proposes tokens the target rejects (0.1 + 0.2)", expected=0.3)


@pytest.mark.parametrize("epsilon, delta", [(0.0, 0.3), (0.09, 0.0)], ids=["epsilon-0", "delta-0"])
@pytest.mark.task(3)
def test_a_zero_setting_keeps_every_token_the_target_allows(epsilon, delta):
    p, q = [0.7, 0.3, 0.0], [0.2, 0.3, 0.5]
    check_rate(p, q, "threshold 0 (every token with p > 0 is kept; token 2 has p = 0)", epsilon=epsilon, delta=delta, expected=0.5)


# Task 4: the rejected branch ------------------------------------------------------------------------

@pytest.mark.task(4)
def test_greedy_ties_go_to_the_lowest_index():
    p, q = [0.05, 0.475, 0.475], [0.9, 0.05, 0.05]  # token 0 rejected; tokens 1 and 2 tie for argmax
    check_distribution(p, q, "greedy", "a tie for the greedy token (np.argmax: the lowest index)", expected=[0, 0.95, 0.05])


@pytest.mark.task(4)
def test_the_greedy_replacement_is_the_targets_argmax_not_the_drafts():
    p, q = [0.7, 0.2, 0.06, 0.04], [0.1, 0.2, 0.3, 0.4]  # argmax p = 0, argmax q = 3; tokens 2 and 3 rejected
    check_distribution(p, q, "greedy", "a draft whose favourite (token 3) is not the target's (token 0)",
                       expected=[0.8, 0.2, 0, 0])


@pytest.mark.parametrize("on_reject", ON_REJECT)
@pytest.mark.task(4)
def test_a_draft_the_target_never_keeps(on_reject):
    p, q = [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.25, 0.75]
    expected = [1.0, 0, 0, 0] if on_reject == "greedy" else p
    check_distribution(p, q, on_reject, "disjoint supports (every proposal rejected)", expected=expected)


@pytest.mark.parametrize("on_reject", ON_REJECT)
@pytest.mark.task(4)
def test_the_draft_equal_to_the_target(on_reject):
    p = [0.5, 0.3, 0.15, 0.05]  # threshold 0.09: token 3 is rejected even though q = p
    check_distribution(p, p, on_reject, "q = p (typical acceptance still rejects the unlikely token 3)")


# Task 5: generated pairs over a grid of settings -----------------------------------------------------

GRID = [(0.09, 0.3), (0.05, 0.2), (0.2, 0.5), (0.3, 0.09), (1.0, 1.0), (0.01, 0.1)]


def generated_cases(vocab: int, seed: int, count: int):
    gen = case_rng(seed)
    made = tried = 0
    while made < count:
        tried += 1
        style = PAIR_STYLES[tried % len(PAIR_STYLES)]
        p, q = random_pair(gen, vocab, style)
        epsilon, delta = GRID[tried % len(GRID)]
        if closest_to_threshold(p, epsilon, delta) > 1e-9:  # one-hot p at ε = δ = 1 sits on it: skip
            made += 1
            yield made, style, p, q, epsilon, delta


def first_failure(failure: GradingFailure):
    return GradingFailure(f"{failure}\n\n(The first failing generated case; cases before it passed.)")


@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 10, 100])
@pytest.mark.task(5)
def test_generated_pairs_match_the_reference(vocab):
    """Property: 120 pairs per vocabulary size (seed 1700 + V, every style of tests/shared/cases.py,
    six settings of ε and δ), every function against the reference to 1e-12."""
    for index, style, p, q, epsilon, delta in generated_cases(vocab, 1700 + vocab, 120):
        what = f"generated pair {index} (V = {vocab}, style {style!r})"
        try:
            check_threshold(p, what, epsilon, delta)
            check_rate(p, q, what, epsilon, delta)
            for on_reject in ON_REJECT:
                result = check_distribution(p, q, on_reject, what, epsilon, delta)
                check_tv(result, p, what)
        except GradingFailure as failure:
            raise first_failure(failure) from None


# Task 6: outputs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("on_reject", ON_REJECT)
@pytest.mark.task(6)
def test_output_sums_to_one_for_rows_within_the_tolerance(on_reject):
    p, q = [0.7, 0.2, 0.06, 0.0400005], [0.25, 0.25, 0.25, 0.2500004]  # off by 5e-7 and 4e-7
    result = check_distribution(p, q, on_reject, "rows off by 5e-7 and 4e-7 (the rejected mass is 1 − the kept mass)")
    if not abs(result.sum() - 1.0) <= TOLERANCE:
        raise GradingFailure(f"typical_output_distribution(p, q, {on_reject!r}) sums to {result.sum()!r}; it must sum to 1.")


@pytest.mark.task(6)
def test_defaults_are_medusas():
    for p in (P, [0.25] * 4):  # ε binds for the first, δ·exp(−H) for the second
        result = call_learner(learner("typical_threshold"), p, case=f"typical_threshold({p}) with the default settings")
        if not abs(result - reference_threshold(p, 0.09, 0.3)) <= TOLERANCE:
            raise GradingFailure(f"typical_threshold's defaults must be epsilon=0.09, delta=0.3 (Medusa's); typical_threshold({p}) gave {result!r}.")
    distribution = call_learner(learner("typical_output_distribution"), P, Q, case="defaults")
    if not np.allclose(distribution, [0.75, 0.25, 0, 0], rtol=0, atol=TOLERANCE):
        raise GradingFailure(f"typical_output_distribution(p, q) must default to on_reject='greedy'; it gave {row(distribution)}.")


@pytest.mark.task(6)
def test_inputs_are_not_modified():
    p, q = np.array(P), np.array(Q)
    check_distribution(p, q, "greedy", "numpy inputs")
    check_rate(p, q, "numpy inputs")
    if not (np.array_equal(p, P) and np.array_equal(q, Q)):
        raise GradingFailure("typical_output_distribution or typical_acceptance_rate changed its input arrays in place.")


# Task 7: bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", BAD_DISTRIBUTION_CALLS)
@pytest.mark.task(7)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    args, kwargs, mentions, problem = BAD_DISTRIBUTION_CALLS[name]
    expect_value_error(learner("typical_output_distribution"), *args, mentions=mentions, problem=problem, **kwargs)


@pytest.mark.task(7)
def test_the_other_functions_refuse_bad_input_too():
    expect_value_error(learner("typical_threshold"), [0.5, 0.6], mentions=("sum to 1",), problem="p summing to 1.1")
    expect_value_error(learner("typical_threshold"), P, delta=-1, mentions=("delta",), problem="delta = -1")
    expect_value_error(learner("typical_acceptance_rate"), P, [0.5, 0.5], mentions=("shape",), problem="p and q of other lengths")
    expect_value_error(learner("typical_acceptance_rate"), P, Q, epsilon=float("nan"), mentions=("epsilon",), problem="epsilon = nan")
    expect_value_error(learner("total_variation"), P, [0.5, 0.5], mentions=("shape",), problem="rows of other lengths")
    expect_value_error(learner("total_variation"), P, [np.nan, 0.5, 0.25, 0.25], mentions=("NaN",), problem="a NaN")
