"""Grading suite for exercise 01-speculative-step: speculative_step(p, q, draft, rng).

Every case replays a fixed stream of uniforms and checks the tokens AND the number of draws
against an independent reference (tests/reference/ex01_reference.py). Streams carry a few spare
uniforms at the end, so drawing too many shows up as a wrong count, with the full reasoning table.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata import ReplayRNG
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.position_table import plural
from tests.reference.ex01_reference import reference_trace
from tests.reference.ex01_report import later_case, mismatch_report
from tests.shared.cases import case_rng, random_verify_case
from tests.shared.statistics import chi_square_test

EXERCISE = "01-speculative-step"
SPARE = (0.5, 0.5, 0.5)  # spare uniforms after the ones a correct step uses

# The worked example of the exercise text and the theory page.
P = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
Q = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]


def speculative_step():
    return learner_function(EXERCISE, "speculative_step")


def run_learner(p, q, draft, stream):
    rng = ReplayRNG(stream)
    tokens = call_learner(speculative_step(), p, q, draft, rng, case=later_case(p, q, draft, stream))
    return tokens, rng.draws


def check_case(p, q, draft, uniforms, what: str) -> list[int]:
    """Replay ``uniforms`` (plus spares) and compare tokens and draws with the reference."""
    stream = list(uniforms) + list(SPARE)
    tokens, draws = run_learner(p, q, draft, stream)
    trace = reference_trace(p, q, draft, stream)
    if tokens != trace.tokens or draws != trace.draws:
        headline = f"speculative_step got {what} wrong."
        if tokens == trace.tokens:
            headline += f" The tokens are right but it drew {plural(draws, 'random number')} instead of {trace.draws}."
        raise mismatch_report(headline, p, q, draft, stream, trace, tokens, draws).failure()
    if not all(type(token) is int for token in tokens):
        kinds = sorted({type(token).__name__ for token in tokens})
        raise GradingFailure(f"speculative_step must return plain Python ints; the list holds {kinds}. Use int(token).")
    return tokens


# Task 1: the worked example ------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_all_accepted():
    assert check_case(P, Q, [1, 2], [0.6, 0.9, 0.2], "the worked example (all accepted)") == [1, 2, 0]


@pytest.mark.task(1)
def test_worked_example_rejection():
    assert check_case(P, Q, [0, 2], [0.6, 0.9], "the worked example (rejection at position 0)") == [2]


# Task 2: the accept test is strict --------------------------------------------------------------

@pytest.mark.task(2)
def test_u_equal_to_the_ratio_rejects():
    p = [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]
    q = [[0.2, 0.6, 0.2]]  # p/q for token 1 is exactly 0.5
    assert check_case(p, q, [1], [0.5, 0.7], "u == p/q (u < p/q is strict, so this must reject)") == [2]


@pytest.mark.task(2)
def test_u_zero_rejects_a_token_the_target_gives_zero_probability():
    p = [[0.0, 0.5, 0.5], [0.3, 0.3, 0.4]]
    q = [[0.5, 0.25, 0.25]]
    assert check_case(p, q, [0], [0.0, 0.6], "u = 0 on a token with p = 0 (0 < 0 is false: reject)") == [2]


# Task 3: the number of tokens -----------------------------------------------------------------

@pytest.mark.parametrize("q_empty", [[], np.empty((0, 3))], ids=["q-as-list", "q-as-array"])
@pytest.mark.task(3)
def test_gamma_zero_samples_one_token_from_p0(q_empty):
    assert check_case([[0.2, 0.3, 0.5]], q_empty, [], [0.6], "γ = 0 (no drafts: one token from p[0])") == [2]


# Rows chosen so that each position's residual, p[γ] and p[γ-1] lead to different tokens.
P4 = [[0.1, 0.2, 0.3, 0.4], [0.4, 0.1, 0.2, 0.3], [0.3, 0.4, 0.1, 0.2], [0.2, 0.3, 0.4, 0.1], [0.7, 0.1, 0.1, 0.1]]
Q4 = [[0.2, 0.4, 0.3, 0.1], [0.8, 0.1, 0.05, 0.05], [0.1, 0.8, 0.05, 0.05], [0.05, 0.05, 0.8, 0.1]]
DRAFT4 = [1, 0, 1, 2]  # p/q = 0.5 at every position


@pytest.mark.task(3)
def test_all_accepted_adds_the_bonus_token_from_the_last_row():
    assert check_case(P4, Q4, DRAFT4, [0.1, 0.2, 0.3, 0.4, 0.6], "all four drafts accepted, bonus from p[4]") == [1, 0, 1, 2, 0]


# For each position, a uniform at which the residual and p[i] give different replacements.
REPLACEMENT_U = [0.2, 0.2, 0.75, 0.75]


@pytest.mark.parametrize("position", range(4))
@pytest.mark.task(3)
def test_rejection_at_each_position_stops_there(position):
    uniforms = [0.1] * position + [0.9, REPLACEMENT_U[position]]
    tokens = check_case(P4, Q4, DRAFT4, uniforms, f"a rejection at position {position}")
    assert len(tokens) == position + 1


# Task 4: the residual with no mass -------------------------------------------------------------

@pytest.mark.task(4)
def test_a_residual_with_no_mass_samples_from_p():
    p = [[0.5, 0.5], [0.5, 0.5]]
    q = [[0.5000004, 0.5]]  # sums to 1 + 4e-7, within tolerance; p <= q everywhere
    check_case(p, q, [0], [0.9999995, 0.7], "a rejection whose residual max(0, p - q) is all zeros")


@pytest.mark.task(4)
def test_a_residual_of_rounding_noise_samples_from_p():
    p = np.array([[0.3, 0.3, 0.4], [0.2, 0.2, 0.6]])
    q = np.array([[0.3 + 3e-7, 0.3, 0.4 + 1e-16]])
    residual_mass = np.maximum(p[0] - q[0], 0).sum()
    assert 0 < residual_mass <= 1e-12 or residual_mass == 0
    check_case(p, q, [0], [0.9999995, 0.1], "a rejection whose residual is rounding noise (total <= 1e-12)")


# Task 5: inputs and outputs ---------------------------------------------------------------------

@pytest.mark.task(5)
def test_accepts_numpy_arrays_and_returns_plain_ints():
    tokens = check_case(np.array(P), np.array(Q), np.array([1, 2]), [0.6, 0.9, 0.2], "numpy inputs")
    assert tokens == [1, 2, 0]


@pytest.mark.task(5)
def test_does_not_modify_its_inputs():
    p, q, draft = np.array(P), np.array(Q), np.array([0, 2])
    run_learner(p, q, draft, [0.6, 0.9, 0.5])
    if not (np.array_equal(p, P) and np.array_equal(q, Q) and list(draft) == [0, 2]):
        raise GradingFailure("speculative_step changed its input arrays in place; work on copies.")


# Task 6: hundreds of random cases against the reference ----------------------------------------

RANDOM_CASES = 80  # per vocabulary size: 400 steps of every shape from γ = 0 to 6


def random_case(gen, vocab: int):
    """A step as a real draft and target give it (tests/shared/cases.py), and uniforms that keep
    at least 1e-9 away from every decision boundary."""
    p, q, draft = random_verify_case(gen, vocab)
    while True:
        uniforms = gen.random(len(draft) + 1).tolist()
        trace = reference_trace(p, q, draft, uniforms + list(SPARE))
        if trace.margin() > 1e-9:
            return p, q, draft, uniforms[: trace.draws]


@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 5, 17, 100])
@pytest.mark.task(6)
def test_random_cases_match_the_reference(vocab):
    gen = case_rng(1000 + vocab)
    cases = RANDOM_CASES
    for index in range(cases):
        p, q, draft, uniforms = random_case(gen, vocab)
        try:
            check_case(p, q, draft, uniforms, f"random case {index} of {cases} (V = {vocab})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing random case; cases before it passed.)", detail=failure.detail) from None


# Task 7: the output is distributed exactly as p --------------------------------------------------

STAT_P = np.array([[0.05, 0.10, 0.15, 0.30, 0.40], [0.2] * 5, [0.1, 0.2, 0.3, 0.2, 0.2]])
STAT_Q = np.array([[0.40, 0.30, 0.15, 0.10, 0.05], [0.3, 0.3, 0.2, 0.1, 0.1]])
STAT_RUNS = 3_000
STAT_SEED = 20261129
STAT_ALPHA = 1e-3  # reject when the chi-square p-value is below this


def first_token_counts(step, runs: int, seed: int) -> np.ndarray:
    """Run ``step`` on drafts sampled from q (as a real draft would) and count the first tokens."""
    gen = np.random.default_rng(seed)
    gamma, vocab = STAT_Q.shape
    counts = np.zeros(vocab, dtype=np.int64)
    drafts = np.stack([gen.choice(vocab, size=runs, p=row) for row in STAT_Q], axis=1)
    uniforms = gen.random((runs, gamma + 1))
    for draft, stream in zip(drafts, uniforms):
        tokens = call_learner(step, STAT_P, STAT_Q, draft.tolist(), ReplayRNG(stream), case="(statistical test)")
        counts[tokens[0]] += 1
    return counts


def first_token_chi_square(step, runs: int = STAT_RUNS, seed: int = STAT_SEED) -> tuple[float, float, np.ndarray]:
    """Pearson's chi-square of the first tokens against p[0]: (statistic, p-value, counts)."""
    counts = first_token_counts(step, runs, seed)
    statistic, _, pvalue, _ = chi_square_test(counts, STAT_P[0])
    return statistic, pvalue, counts


@pytest.mark.statistical
@pytest.mark.task(7)
def test_first_token_is_distributed_as_p():
    """Chi-square goodness of fit of the first emitted token against p[0].

    Statistic: Pearson's chi-square over the 5 tokens (4 degrees of freedom), 3,000 runs with
    drafts sampled from q[0] and fixed seeds (so the verdict never changes between runs).
    Threshold: fail when the p-value is below 1e-3. Power: a rejection resampled from p gives a
    first token off by 0.137 per run in chi-square terms (expected statistic about 415), a residual
    q - p one of 3.29; tests/maintainer/test_margins_chi_square.py checks that the reference's
    p-value at this seed clears 0.05 and that both mutants score below 1e-3 by a wide margin.
    """
    statistic, pvalue, counts = first_token_chi_square(speculative_step())
    if pvalue < STAT_ALPHA:
        raise GradingFailure(
            "The first token speculative_step emits is not distributed as the target p[0].\n"
            f"  runs: {STAT_RUNS}, drafts sampled from q[0] = {STAT_Q[0].tolist()}\n"
            f"  observed frequencies: {(counts / STAT_RUNS).round(4).tolist()}\n"
            f"  target p[0]:          {STAT_P[0].tolist()}\n"
            f"  chi-square = {statistic:.1f} (4 degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            "A common cause: resampling a rejection from p instead of the residual max(0, p - q)."
        )


# Task 8: bad input -----------------------------------------------------------------------------

BAD_INPUTS = {
    "p-with-too-few-rows": (P[:2], Q, [1, 2], ("shape",), "p with 2 rows for a draft of 2 tokens"),
    "q-with-another-vocabulary": (P, [[0.5, 0.5], [0.5, 0.5]], [1, 0], ("shape",), "q with 2 columns where p has 3"),
    "q-with-too-many-rows": (P, Q + [[1.0, 0.0, 0.0]], [1, 2], ("shape",), "q with 3 rows for a draft of 2 tokens"),
    "token-past-the-vocabulary": (P, Q, [1, 3], ("out of range",), "draft token 3 in a vocabulary of 3"),
    "negative-token": (P, Q, [-1, 2], ("out of range",), "draft token -1"),
    "token-the-draft-could-not-propose": (P, [[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]], [2, 2], ("zero probability",), "q[0, 2] = 0 for drafted token 2"),
    "negative-probability": ([[0.6, 0.5, -0.1]] + P[1:], Q, [1, 2], ("negative",), "p[0, 2] = -0.1"),
    "nan-probability": (P, [[0.5, 0.3, 0.2], [np.nan, 0.4, 0.6]], [1, 2], ("NaN",), "a NaN in q"),
    "row-summing-to-1.1": (P, [[0.5, 0.4, 0.2], [0.2, 0.2, 0.6]], [1, 2], ("sum to 1",), "q row 0 summing to 1.1"),
    "row-off-by-2e-6": ([[0.2, 0.5, 0.300002]] + P[1:], Q, [1, 2], ("sum to 1",), "p row 0 summing to 1.000002"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(8)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, draft, mentions, problem = BAD_INPUTS[name]
    expect_value_error(speculative_step(), p, q, draft, ReplayRNG([0.5] * 4), mentions=mentions, problem=problem)


@pytest.mark.task(8)
def test_rows_within_the_tolerance_are_accepted():
    p = [[0.2, 0.5, 0.3000005], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]  # off by 5e-7 < 1e-6
    check_case(p, Q, [1, 2], [0.6, 0.9, 0.2], "a row summing to 1 + 5e-7 (within the 1e-6 tolerance)")
