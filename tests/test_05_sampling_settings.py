"""Grading suite for exercise 05-sampling-settings: warp and speculative_step_from_logits.

warp is compared with an independent reference (tests/reference/ex05_reference.py) to 1e-12,
removed tokens exactly 0. The step from logits replays fixed streams and checks tokens and draws
against the reference warp followed by exercise 01's reference. A chi-square test with a fixed
seed checks that the output follows the WARPED target when the drafts follow the warped draft.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata import ReplayRNG
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex05_cases import (
    STAT_ALPHA,
    STAT_RUNS,
    STAT_SEED,
    STAT_SETTINGS,
    STAT_TARGET,
    first_token_counts,
    generated_step_case,
    generated_warp_case,
)
from tests.reference.ex05_reference import reference_warp
from tests.reference.ex05_report import check_step, check_warp
from tests.shared.cases import case_rng
from tests.shared.statistics import chi_square_test

EXERCISE = "05-sampling-settings"
LOGITS = np.log([0.4, 0.3, 0.2, 0.1])  # the worked example: softmax [0.4, 0.3, 0.2, 0.1]
TARGET = np.log([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])  # exercise 01's rows, as logits
DRAFTS = np.log([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])


def warp():
    return learner_function(EXERCISE, "warp")


def step():
    return learner_function(EXERCISE, "speculative_step_from_logits")


# Task 1: warp, temperature ------------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_warp():
    check_warp(warp(), LOGITS, "the worked example at the defaults (plain softmax)")
    check_warp(warp(), LOGITS, "the worked example at temperature 0.5", temperature=0.5)
    check_warp(warp(), LOGITS, "the worked example with top_k=2", top_k=2)


@pytest.mark.parametrize("temperature", [0.25, 0.5, 2.0, 10.0])
@pytest.mark.task(1)
def test_temperature_divides_the_logits(temperature):
    check_warp(warp(), [1.0, -0.5, 2.0, 0.0, 0.7], f"temperature {temperature}", temperature=temperature)


@pytest.mark.task(1)
def test_large_logits_do_not_overflow():
    check_warp(warp(), [1000.0, 999.0, 998.0], "logits near 1000 (exp(1000) overflows: subtract the maximum first)")
    check_warp(warp(), [[-1000.0, -1001.0], [800.0, 700.0]], "rows far from 0, at temperature 0.5", temperature=0.5)


@pytest.mark.task(1)
def test_temperature_zero_is_one_hot_at_the_argmax():
    check_warp(warp(), [0.1, 2.0, -1.0, 1.5], "temperature 0 (all mass on the argmax)", temperature=0)
    check_warp(warp(), [0.1, 2.0, 2.0, 1.5], "temperature 0 with a tie for the maximum (the lower index)", temperature=0)
    check_warp(warp(), [0.1, 2.0, 2.0, 1.5], "temperature 0 with top_k and top_p", temperature=0, top_k=3, top_p=0.5)


@pytest.mark.task(1)
def test_masked_tokens_keep_probability_zero():
    check_warp(warp(), [1.0, -np.inf, 0.5, -np.inf], "logits with two -inf (masked) tokens")
    check_warp(warp(), [-np.inf, -np.inf, 3.0], "a row whose only finite logit is the last", temperature=0.3)


# Task 2: warp, top-k -------------------------------------------------------------------------------

@pytest.mark.task(2)
def test_top_k_keeps_the_k_most_likely_tokens():
    check_warp(warp(), [0.5, 2.0, -1.0, 1.5, 0.0], "top_k=3", top_k=3)
    check_warp(warp(), [0.5, 2.0, -1.0, 1.5, 0.0], "top_k=1 (only the argmax)", top_k=1)


@pytest.mark.task(2)
def test_top_k_at_least_the_vocabulary_changes_nothing():
    check_warp(warp(), [0.5, 2.0, -1.0], "top_k=3 on 3 tokens", top_k=3)
    check_warp(warp(), [0.5, 2.0, -1.0], "top_k=10 on 3 tokens", top_k=10)


@pytest.mark.task(2)
def test_top_k_ties_at_the_boundary_go_to_the_lower_index():
    check_warp(warp(), [2.0, 1.0, 2.0, 2.0], "top_k=2 with three tokens tied for first (keeps tokens 0 and 2)", top_k=2)
    check_warp(warp(), [0.0, 1.0, 1.0, 1.0, 3.0], "top_k=2 with three tokens tied for second (keeps 4 and 1)", top_k=2)


# Task 3: warp, top-p -------------------------------------------------------------------------------

@pytest.mark.task(3)
def test_top_p_keeps_the_shortest_prefix_that_reaches_p():
    check_warp(warp(), LOGITS, "top_p=0.6 ([0.4, 0.3] reaches 0.7 >= 0.6)", top_p=0.6)
    check_warp(warp(), LOGITS, "top_p=0.95 (four tokens needed)", top_p=0.95)


@pytest.mark.task(3)
def test_top_p_reaching_p_exactly_stops_there():
    uniform = np.zeros(4)  # probabilities exactly 0.25 each, cumulative 0.25, 0.5, 0.75, 1.0
    check_warp(warp(), uniform, "top_p=0.5 on four equal tokens (0.25 + 0.25 reaches 0.5: keep tokens 0 and 1)", top_p=0.5)
    check_warp(warp(), uniform, "top_p=0.75 on four equal tokens (keep tokens 0, 1, 2)", top_p=0.75)


@pytest.mark.task(3)
def test_top_p_always_keeps_at_least_one_token():
    check_warp(warp(), LOGITS, "top_p=1e-9 (the most likely token alone)", top_p=1e-9)
    check_warp(warp(), [1.0, 3.0, 3.0], "top_p=0.1 with a tie for first (token 1 alone)", top_p=0.1)


@pytest.mark.task(3)
def test_top_p_one_changes_nothing():
    check_warp(warp(), [0.3, -2.0, 1.1, 0.0, 4.0], "top_p=1.0", top_p=1.0)


# Task 4: warp, the order of the steps and the shapes ------------------------------------------------

@pytest.mark.task(4)
def test_top_p_measures_mass_after_temperature():
    check_warp(warp(), LOGITS, "temperature 0.5 then top_p=0.8 ([0.533, 0.3] reaches 0.833)", temperature=0.5, top_p=0.8)


@pytest.mark.task(4)
def test_top_p_measures_mass_after_top_k_renormalised():
    check_warp(warp(), LOGITS, "top_k=3 then top_p=0.75 (after top-k: [4/9, 3/9, 2/9], two tokens reach 7/9)", top_k=3, top_p=0.75)


@pytest.mark.task(4)
def test_rows_are_warped_independently_and_shapes_kept():
    rows = np.array([[0.5, 2.0, -1.0, 1.5], [3.0, 3.0, 0.0, -2.0], [-5.0, 0.0, 0.0, 1.0]])
    check_warp(warp(), rows, "three rows, top_k=2, top_p=0.9, temperature 0.7", temperature=0.7, top_k=2, top_p=0.9)
    check_warp(warp(), rows[:1], "one row of shape (1, 4)", top_k=3)
    check_warp(warp(), np.empty((0, 4)), "zero rows of shape (0, 4)", top_k=2, top_p=0.5)


@pytest.mark.task(4)
def test_warp_does_not_modify_its_input():
    logits = np.array([[0.5, 2.0, -1.0, 1.5]])
    call_learner(warp(), logits, temperature=0.5, top_k=2, top_p=0.9, case="(numpy logits)")
    if not np.array_equal(logits, [[0.5, 2.0, -1.0, 1.5]]):
        raise GradingFailure("warp changed its input logits in place; work on a copy.")


@pytest.mark.generated
@pytest.mark.task(4)
def test_generated_settings_match_the_reference():
    """300 generated cases (seed 505): 1-D or 2-D logits, temperature in {0} ∪ [0.2, 3], top_k and
    top_p on or off. Cases where a top-p cumulative sum lies within 1e-9 of top_p are regenerated."""
    gen = case_rng(505)
    for index in range(300):
        logits, settings = generated_warp_case(gen)
        try:
            check_warp(warp(), logits, f"generated case {index}", **settings)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated case; cases before it passed.)") from None


# Task 5: the step from logits ----------------------------------------------------------------------

@pytest.mark.task(5)
def test_worked_example_step_at_the_defaults():
    check_step(step(), TARGET, DRAFTS, [1, 2], [0.6, 0.9, 0.2], "the worked example (all accepted)")
    check_step(step(), TARGET, DRAFTS, [0, 2], [0.6, 0.9], "the worked example (rejection at position 0)")


@pytest.mark.task(5)
def test_both_sides_are_warped_with_the_temperature():
    # Position 0, token 0 at temperature 0.5: p/q = 0.105/0.658 = 0.16; with an unwarped side it is 0.21 or 0.30.
    check_step(step(), TARGET, DRAFTS, [0, 2], [0.18, 0.5], "a rejection that happens only when both sides are tempered", temperature=0.5)
    check_step(step(), TARGET, DRAFTS, [0, 2], [0.12, 0.97, 0.3], "an acceptance at temperature 0.5", temperature=0.5)


@pytest.mark.task(5)
def test_both_sides_are_cut_with_top_k():
    target = np.log([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    drafts = np.log([[0.25, 0.35, 0.3, 0.1]])  # top-2 of the draft: tokens 1 and 2
    check_step(step(), target, drafts, [2], [0.95, 0.5], "a rejection that happens only when q is cut to its top 2 too (p/q = 0.929)", top_k=2)


@pytest.mark.task(5)
def test_both_sides_are_cut_with_top_p():
    target = np.log([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    drafts = np.log([[0.25, 0.35, 0.3, 0.1]])  # top_p=0.6 keeps the draft's tokens 1 and 2
    check_step(step(), target, drafts, [2], [0.95, 0.5], "a rejection that happens only when q is cut by top_p too", top_p=0.6)


@pytest.mark.task(5)
def test_temperature_zero_is_greedy_and_draws_nothing():
    check_step(step(), TARGET, DRAFTS, [0, 2], [], "temperature 0 (greedy: argmax p[0] = 1 replaces draft 0)", temperature=0)
    target = np.log([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    drafts = np.log([[0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    check_step(step(), target, drafts, [1, 2], [], "temperature 0, both drafts agree, bonus argmax p[2]", temperature=0)


@pytest.mark.task(5)
def test_gamma_zero():
    check_step(step(), TARGET[:1], [], [], [0.6], "γ = 0 with draft_logits = [] (one token from warped p[0])", temperature=0.8)
    check_step(step(), TARGET[:1], np.empty((0, 3)), [], [0.1], "γ = 0 with draft_logits of shape (0, 3)", top_k=2)


@pytest.mark.generated
@pytest.mark.parametrize("vocab", [3, 8])
@pytest.mark.task(5)
def test_generated_steps_match_the_reference(vocab):
    """100 generated steps per vocabulary size (seed 550 + V); uniforms at least 1e-9 from every
    decision boundary, top-p cumulative sums at least 1e-9 from top_p."""
    gen = case_rng(550 + vocab)
    for index in range(100):
        target, drafts, draft, uniforms, settings = generated_step_case(gen, vocab)
        try:
            check_step(step(), target, drafts, draft, uniforms, f"generated step {index} (V = {vocab})", **settings)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated step; steps before it passed.)", detail=failure.detail) from None


# Task 6: the output follows the warped target ------------------------------------------------------

@pytest.mark.statistical
@pytest.mark.task(6)
def test_first_token_follows_the_warped_target():
    """Chi-square goodness of fit of the first emitted token against warp(target)[0].

    Statistic: Pearson's chi-square over the 4 tokens the warped target allows (3 degrees of
    freedom); a token outside them fails at once. 1,500 runs, temperature 1.5 and top_k = 4 on
    both sides, drafts sampled from the warped draft, fixed seed. Threshold: fail when the
    p-value is below 1e-3. tests/maintainer/test_margins_chi_square.py shows the reference far
    above it and the one-sided-warping mutants (tests/mutants/ex05_sampling_settings.toml) far below.
    """
    counts = first_token_counts(step(), STAT_RUNS, STAT_SEED)
    p, _ = reference_warp(STAT_TARGET, **STAT_SETTINGS)
    statistic, df, pvalue, impossible = chi_square_test(counts, p[0])
    if pvalue < STAT_ALPHA:
        raise GradingFailure(
            "The first token speculative_step_from_logits emits does not follow the warped target.\n"
            f"  runs: {STAT_RUNS}, settings {STAT_SETTINGS}, drafts sampled from warp(draft_logits)[0]\n"
            f"  observed frequencies: {(counts / STAT_RUNS).round(4).tolist()}\n"
            f"  warp(target)[0]:      {p[0].round(4).tolist()}\n"
            + (f"  tokens the warped target never emits came out: {impossible}\n" if impossible else "")
            + f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            "A common cause: warping only one side (the accept test must use the warped p AND the warped q)."
        )


# Task 7: bad input -------------------------------------------------------------------------------

@pytest.mark.task(7)
def test_a_draft_that_warping_removed_raises():
    expect_value_error(step(), TARGET, DRAFTS, [2, 2], ReplayRNG([0.5] * 4), top_k=2, mentions=("zero probability",),
                       problem="draft token 2 at position 0, which top_k=2 removes from the draft (q[0, 2] = 0)")
    expect_value_error(step(), TARGET, DRAFTS, [1, 2], ReplayRNG([]), temperature=0, mentions=("zero probability",),
                       problem="draft token 1 at temperature 0, where the draft proposes only its argmax 0")


BAD_WARPS = {
    "nan-logit": ([0.1, np.nan, 0.3], {}, ("NaN",), "a NaN logit"),
    "positive-infinite-logit": ([0.1, np.inf, 0.3], {}, ("inf",), "a +inf logit"),
    "all-masked-row": ([[0.1, 0.2], [-np.inf, -np.inf]], {}, ("all -inf",), "a row whose logits are all -inf"),
    "three-dimensional": (np.zeros((2, 2, 3)), {}, ("shape",), "logits of shape (2, 2, 3)"),
    "empty-vocabulary": ([], {}, ("shape",), "logits over an empty vocabulary"),
    "negative-temperature": (LOGITS, {"temperature": -0.5}, ("temperature",), "temperature = -0.5"),
    "nan-temperature": (LOGITS, {"temperature": np.nan}, ("temperature",), "temperature = NaN"),
    "top-k-zero": (LOGITS, {"top_k": 0}, ("top_k",), "top_k = 0 (None turns top-k off, not 0)"),
    "top-k-fractional": (LOGITS, {"top_k": 2.5}, ("top_k",), "top_k = 2.5"),
    "top-p-zero": (LOGITS, {"top_p": 0.0}, ("top_p",), "top_p = 0"),
    "top-p-above-one": (LOGITS, {"top_p": 1.5}, ("top_p",), "top_p = 1.5"),
}


@pytest.mark.parametrize("name", BAD_WARPS)
@pytest.mark.task(7)
def test_warp_bad_input_raises_a_value_error_naming_the_problem(name):
    logits, settings, mentions, problem = BAD_WARPS[name]
    expect_value_error(warp(), logits, **settings, mentions=mentions, problem=problem)


BAD_STEPS = {
    "target-with-too-few-rows": (TARGET[:2], DRAFTS, [1, 2], {}, ("shape",), "target_logits with 2 rows for 2 drafts"),
    "one-dimensional-draft-logits": (TARGET[:2], DRAFTS[0], [1], {}, ("shape",), "draft_logits of shape (3,) instead of (1, 3)"),
    "token-past-the-vocabulary": (TARGET, DRAFTS, [1, 3], {}, ("out of range",), "draft token 3 in a vocabulary of 3"),
    "negative-temperature": (TARGET, DRAFTS, [1, 2], {"temperature": -1.0}, ("temperature",), "temperature = -1"),
    "top-p-zero": (TARGET, DRAFTS, [1, 2], {"top_p": 0.0}, ("top_p",), "top_p = 0"),
}


@pytest.mark.parametrize("name", BAD_STEPS)
@pytest.mark.task(7)
def test_step_bad_input_raises_a_value_error_naming_the_problem(name):
    target, drafts, draft, settings, mentions, problem = BAD_STEPS[name]
    expect_value_error(step(), target, drafts, draft, ReplayRNG([0.5] * 4), **settings, mentions=mentions, problem=problem)
