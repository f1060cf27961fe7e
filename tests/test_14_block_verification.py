"""Grading suite for exercise 14-block-verification: block_verify(p, q, draft, rng) and
expected_accepted(p, q, rule).

Every fixed and random case replays a stream of uniforms and checks the tokens AND the number of
draws (always γ + 1) against an independent reference (tests/reference/ex14_reference.py). The
statistical tests (tests/reference/ex14_simulation.py) check the law of the whole emitted block
and the mean number of kept drafts against exact enumerations.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from speckata import ReplayRNG
from speckata.grading import GradingFailure, call_learner, expect_value_error
from tests.reference import ex14_simulation as sim
from tests.reference.ex14_cases import (
    EXERCISE,  # noqa: F401  (the exercise this suite grades)
    RANDOM_CASES,
    block_verify,
    call_step,
    check_case,
    check_expected,
    expected_accepted,
    random_case,
)
from tests.shared.cases import case_rng

TOY_P, TOY_Q = [[1 / 3, 2 / 3]] * 3, [[2 / 3, 1 / 3]] * 2  # the theory page's toy, γ = 2


# Task 1: the worked examples ------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_block_kept_whatever_eta():
    assert check_case(TOY_P, TOY_Q, [0, 1], [0.7, 0.3, 0.5], "the worked example (draft [0, 1]: h = (0, 1))") == [0, 1, 1]


@pytest.mark.task(1)
def test_worked_example_nothing_kept():
    assert check_case(TOY_P, TOY_Q, [0, 0], [0.1, 0.6, 0.5], "the worked example (draft [0, 0]: h = (0, 1/4))") == [1]


@pytest.mark.task(1)
def test_worked_example_both_kept():
    assert check_case(TOY_P, TOY_Q, [0, 0], [0.1, 0.2, 0.5], "draft [0, 0] with η_2 = 0.2 < h_2 = 1/4") == [0, 0, 1]


# Task 2: τ is the largest i with η_i < h_i --------------------------------------------------------

@pytest.mark.task(2)
def test_tau_is_the_largest_i_not_the_first():
    # draft [1, 0]: h = (1, 1/2); η = (0.5, 0.3) passes at both positions, so τ = 2
    assert check_case(TOY_P, TOY_Q, [1, 0], [0.5, 0.3, 0.5], "η_1 < h_1 and η_2 < h_2 (τ is the largest, 2)") == [1, 0, 1]


@pytest.mark.task(2)
def test_a_late_success_keeps_earlier_drafts_that_failed():
    # draft [0, 1]: h_1 = 0 fails for every η, yet h_2 = 1 keeps both drafts
    assert check_case(TOY_P, TOY_Q, [0, 1], [0.99, 0.99, 0.1], "η_1 >= h_1 but η_2 < h_2 (τ = 2 keeps draft 1 too)") == [0, 1, 0]


@pytest.mark.task(2)
def test_eta_equal_to_h_does_not_keep():
    # draft [1, 0]: h_2 = p_2 = 1/2 exactly; η_2 = 0.5 is not below it, h_1 = 1 gives τ = 1
    assert check_case(TOY_P, TOY_Q, [1, 0], [0.5, 0.5, 0.5], "η_2 == h_2 (η < h is strict: not kept)") == [1, 1]


@pytest.mark.task(2)
def test_eta_zero_keeps_nothing_whose_h_is_zero():
    p = [[0.0, 0.5, 0.5], [0.3, 0.3, 0.4]]
    q = [[0.5, 0.25, 0.25]]
    assert check_case(p, q, [0], [0.0, 0.6], "η = 0 on a token with p = 0 (h = 0: 0 < 0 is false)") == [2]


# Task 3: the residual carries the weight p_τ ----------------------------------------------------

# p_1 = 0.4 after draft 0; at position 1, Z_1 = 0.18 and h_1 = 0.18 / 0.78; after draft 0 again h_2 = 0.025.
P3 = [[0.2, 0.5, 0.3], [0.05, 0.45, 0.5], [0.3, 0.3, 0.4]]
Q3 = [[0.5, 0.3, 0.2], [0.8, 0.1, 0.1]]


@pytest.mark.task(3)
def test_the_residual_is_scaled_by_the_weight():
    # τ = 1: residual max(0.4 · p[1] - q[1], 0) = [0, 0.08, 0.1]; u = 0.45 lands in token 2's share
    assert check_case(P3, Q3, [0, 0], [0.1, 0.5, 0.45], "τ = 1 with p_1 = 0.4 (residual max(p_1 · p[1] − q[1], 0))") == [0, 2]


@pytest.mark.task(3)
def test_every_draft_kept_samples_from_the_last_row():
    assert check_case(P3, Q3, [0, 0], [0.1, 0.01, 0.55], "τ = γ = 2 (the extra token from p[2])") == [0, 0, 1]


@pytest.mark.parametrize("q_empty", [[], np.empty((0, 3))], ids=["q-as-list", "q-as-array"])
@pytest.mark.task(3)
def test_gamma_zero_samples_one_token_from_p0(q_empty):
    assert check_case([[0.2, 0.3, 0.5]], q_empty, [], [0.6], "γ = 0 (no drafts: one token from p[0])") == [2]


# Task 4: the residuals with no mass ---------------------------------------------------------------

# p_1 = 1 after draft 0; p[1] and q[1] differ by 1e-13 only, so Z_1 is rounding noise and h_1 = 0,
# and h_2 = p_2 = 1 - 2e-13, which η_2 = 1 - 1e-14 fails.
Q4 = [[0.5, 0.5], [0.5 + 1e-13, 0.5 - 1e-13]]
NOISE_STREAM = [0.5, 1 - 1e-14, 0.7]


@pytest.mark.task(4)
def test_a_position_without_residual_mass_is_never_tau():
    p = [[0.6, 0.4], [0.5, 0.5], [0.3, 0.7]]
    what = "Z_1 = 1e-13 (h_1 = 0, not Z_1 / (Z_1 + 1 − p_1) = 1): τ = 0, residual [0.1, 0]"
    assert check_case(p, Q4, [0, 0], NOISE_STREAM, what) == [0]


@pytest.mark.task(4)
def test_a_residual_with_no_mass_samples_from_p():
    p = [[0.5, 0.5], [0.5, 0.5], [0.3, 0.7]]  # p[0] = q[0]: at τ = 0, max(p[0] − q[0], 0) is all zeros
    assert check_case(p, Q4, [0, 0], NOISE_STREAM, "τ = 0 with the residual max(p[0] − q[0], 0) all zeros") == [1]


# Task 5: inputs and outputs -----------------------------------------------------------------------

@pytest.mark.task(5)
def test_accepts_numpy_arrays_and_returns_plain_ints():
    assert check_case(np.array(P3), np.array(Q3), np.array([0, 0]), [0.1, 0.01, 0.55], "numpy inputs") == [0, 0, 1]


@pytest.mark.task(5)
def test_does_not_modify_its_inputs():
    p, q, draft = np.array(P3), np.array(Q3), np.array([0, 0])
    call_learner(block_verify(), p, q, draft, ReplayRNG([0.1, 0.5, 0.45, 0.5]), case="(inputs kept intact)")
    if not (np.array_equal(p, P3) and np.array_equal(q, Q3) and list(draft) == [0, 0]):
        raise GradingFailure("block_verify changed its input arrays in place; work on copies.")


# Task 6: random cases against the reference ------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 5, 17, 100])
@pytest.mark.task(6)
def test_random_cases_match_the_reference(vocab):
    gen = case_rng(1400 + vocab)
    for index in range(RANDOM_CASES):
        p, q, draft, uniforms = random_case(gen, vocab)
        try:
            check_case(p, q, draft, uniforms, f"random case {index} of {RANDOM_CASES} (V = {vocab})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing random case; cases before it passed.)", detail=failure.detail) from None


# Task 7: the emitted block is distributed as the rule says ------------------------------------------

STAT_ALPHA = 1e-3  # reject when the chi-square p-value is below this


@pytest.mark.statistical
@pytest.mark.task(7)
def test_emitted_blocks_follow_the_exact_law():
    """Chi-square goodness of fit of the WHOLE emitted sequence (not only its first token).

    Models: a context-dependent target and draft over V = 3 tokens (a row for every drafted
    prefix, tests/reference/ex14_simulation.py), γ = 2, so the rule can emit 39 sequences of 1 to
    3 tokens. Statistic: Pearson's chi-square of the counts of each emitted sequence against its
    exact probability under the block rule (enumerated over every drafted block and every τ);
    sequences expected fewer than 5 times are pooled into one bin, and a sequence the rule never
    emits fails outright. Sample: 4,000 steps on drafts sampled from the draft's rows, fixed
    seeds. Threshold: fail when the p-value is below 1e-3. The reference scores p = 0.63 here;
    a token-level weight (p_i without p_{i-1}) scores about 1,100 and h_i = p_i about 680 (26
    degrees of freedom); dropping p_τ from the residual emits a sequence the rule never emits.
    tests/maintainer/test_margins_chi_square.py re-checks all of it.
    """
    statistic, df, pvalue, impossible = sim.joint_chi_square(block_verify(), call_step)
    if impossible:
        raise GradingFailure(
            f"block_verify emitted {impossible[:3]}, sequences the block rule never emits here (drafts from q, "
            f"{sim.JOINT_RUNS} steps). Is the residual max(p_τ · p[τ] − q[τ], 0), with the weight p_τ?")
    if pvalue < STAT_ALPHA:
        raise GradingFailure(
            "The sequences block_verify emits are not distributed as the block rule's exact law.\n"
            f"  steps: {sim.JOINT_RUNS}, V = {sim.JOINT_VOCAB}, γ = {sim.JOINT_GAMMA}, drafts sampled from q\n"
            f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            "Common causes: a weight p_i that forgets p_{i-1}; h_i = p_i before the last position.")


# Task 8: expected_accepted, exactly -------------------------------------------------------------

@pytest.mark.task(8)
def test_toy_expected_values():
    token = check_expected(TOY_P, TOY_Q, "token", "the toy (10/9)")
    block = check_expected(TOY_P, TOY_Q, "block", "the toy (11/9)")
    assert math.isclose(token, 10 / 9) and math.isclose(block, 11 / 9)


@pytest.mark.task(8)
def test_gamma_zero_keeps_nothing():
    assert check_expected([[0.2, 0.8]], [], "block", "γ = 0") == 0.0


@pytest.mark.task(8)
def test_a_token_the_draft_never_proposes_counts_for_nothing():
    p = [[0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.3, 0.3, 0.4]]  # 0/0 and 0.5/0 where q gives no mass
    q = [[0.6, 0.4, 0.0], [0.0, 0.5, 0.5]]
    for rule in ("token", "block"):
        check_expected(p, q, rule, "rows where q gives a token no mass")


@pytest.mark.generated
@pytest.mark.task(8)
def test_random_rows_match_the_reference_enumeration():
    gen = case_rng(1408)
    for index in range(24):
        vocab, gamma = int(gen.integers(2, 5)), int(gen.integers(1, 5))
        p = gen.dirichlet(np.full(vocab, 0.5), size=gamma + 1)
        q = gen.dirichlet(np.full(vocab, 0.5), size=gamma)
        token = check_expected(p, q, "token", f"random rows {index} (V = {vocab}, γ = {gamma})")
        block = check_expected(p, q, "block", f"random rows {index} (V = {vocab}, γ = {gamma})")
        assert block >= token - 1e-12


# Task 9: simulated mean lengths against the exact values -------------------------------------------

@pytest.mark.statistical
@pytest.mark.parametrize("case", sim.MEAN_CASES)
@pytest.mark.task(9)
def test_mean_kept_drafts_sit_on_the_exact_mean(case):
    """z-test of the mean number of drafts block_verify keeps against the exact mean.

    Statistic: z = (mean − E[τ]) / (σ / √N), with E[τ] and σ² = Var[τ] enumerated exactly
    (tests/reference/ex14_reference.py, through the law of τ). Sample: N = 2,500 steps on drafts
    sampled from q, γ = 3, fixed seeds; cases: the toy p = [1/3, 2/3], q = [2/3, 1/3] and random
    rows where the block rule keeps 0.22 more drafts than exercise 01's. Threshold: |z| < 4.5. The
    reference scores |z| below 1; a token-level weight scores about 24, h_i = p_i about 12
    (tests/maintainer/test_margins_other_checks.py).
    """
    mean, exact, z = sim.mean_accepted_z(block_verify(), case, call=call_step)
    if abs(z) >= sim.MEAN_Z:
        raise GradingFailure(
            f"block_verify keeps {mean:.4f} drafts per step on average over {sim.MEAN_RUNS} steps ({case} rows, "
            f"γ = {sim.MEAN_GAMMA}); the block rule keeps {exact:.4f} exactly: z = {z:.1f}, |z| >= {sim.MEAN_Z}.")


# Task 10: bad input ------------------------------------------------------------------------------

P = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
Q = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]
BAD_INPUTS = {
    "p-with-too-few-rows": (P[:2], Q, [1, 2], ("shape",), "p with 2 rows for a draft of 2 tokens"),
    "q-with-another-vocabulary": (P, [[0.5, 0.5], [0.5, 0.5]], [1, 0], ("shape",), "q with 2 columns where p has 3"),
    "token-past-the-vocabulary": (P, Q, [1, 3], ("out of range",), "draft token 3 in a vocabulary of 3"),
    "token-the-draft-could-not-propose": (P, [[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]], [2, 2], ("zero probability",), "q[0, 2] = 0"),
    "negative-probability": ([[0.6, 0.5, -0.1]] + P[1:], Q, [1, 2], ("negative",), "p[0, 2] = -0.1"),
    "nan-probability": (P, [[0.5, 0.3, 0.2], [np.nan, 0.4, 0.6]], [1, 2], ("NaN",), "a NaN in q"),
    "row-summing-to-1.1": (P, [[0.5, 0.4, 0.2], [0.2, 0.2, 0.6]], [1, 2], ("sum to 1",), "q row 0 summing to 1.1"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(10)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, draft, mentions, problem = BAD_INPUTS[name]
    expect_value_error(block_verify(), p, q, draft, ReplayRNG([0.5] * 4), mentions=mentions, problem=problem)


BAD_EXPECTED = {
    "unknown-rule": (TOY_P, TOY_Q, "typical", ("rule",), "rule 'typical'"),
    "q-with-too-many-rows": (TOY_P, TOY_Q * 2, "block", ("shape",), "q with 4 rows where p has 3"),
    "nan-probability": (TOY_P, [[np.nan, 0.5], [0.5, 0.5]], "token", ("NaN",), "a NaN in q"),
    "too-many-blocks": ([[0.5, 0.5]] * 22, [[0.5, 0.5]] * 21, "block", ("too many",), "2**21 blocks to enumerate"),
}


@pytest.mark.parametrize("name", BAD_EXPECTED)
@pytest.mark.task(10)
def test_expected_accepted_refuses_bad_input(name):
    p, q, rule, mentions, problem = BAD_EXPECTED[name]
    expect_value_error(expected_accepted(), p, q, rule, mentions=mentions, problem=problem)
