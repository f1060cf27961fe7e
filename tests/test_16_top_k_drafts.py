"""Grading suite for exercise 16-top-k-drafts: verify_top_k(p, candidates, q, rng).

Every case replays a fixed stream of uniforms and checks the token AND the number of draws
against an independent reference (tests/reference/ex16_reference.py); streams carry spare
uniforms, so drawing too many shows as a wrong count. A chi-square test with fixed seeds checks
that the emitted token is distributed as p when the candidates are the draft's top 3, which is
where plugging the draft's probabilities into min(1, p/q) goes wrong.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata import ReplayRNG
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.position_table import plural
from tests.reference.ex16_reference import reference_trace
from tests.reference.ex16_report import describe_case, mismatch_report
from tests.shared.cases import PAIR_STYLES, case_rng, random_pair
from tests.shared.statistics import chi_square_test

EXERCISE = "16-top-k-drafts"
SPARE = (0.5, 0.5, 0.5)  # spare uniforms after the ones a correct call uses

# The worked example of the exercise text and the theory page: the draft's top 2 are [1, 2].
P = [0.5, 0.25, 0.125, 0.125]
Q = [0.2, 0.4, 0.3, 0.1]
TOP2 = [1, 2]


def verify_top_k():
    return learner_function(EXERCISE, "verify_top_k")


def run_learner(p, candidates, q, stream):
    rng = ReplayRNG(stream)
    token = call_learner(verify_top_k(), p, candidates, q, rng, case=describe_case(p, candidates, q, stream))
    return token, rng.draws


def check_case(p, candidates, q, uniforms, what: str) -> int:
    """Replay ``uniforms`` (plus spares) and compare the token and draws with the reference."""
    stream = list(uniforms) + list(SPARE)
    token, draws = run_learner(p, candidates, q, stream)
    trace = reference_trace(p, candidates, stream)
    if token != trace.tokens[0] or draws != trace.draws:
        headline = f"verify_top_k got {what} wrong."
        if token == trace.tokens[0]:
            headline += f" The token is right but it drew {plural(draws, 'random number')} instead of {trace.draws}."
        raise mismatch_report(headline, p, candidates, q, stream, trace, token, draws).failure()
    if type(token) is not int:
        raise GradingFailure(f"verify_top_k must return a plain Python int; it returned {type(token).__name__} {token!r}. Use int(token).")
    return token


# Task 1: the worked example ------------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_first_candidate_accepted():
    assert check_case(P, TOP2, Q, [0.1], "the worked example (0.1 < p(1) = 0.25: accept token 1)") == 1


@pytest.mark.task(1)
def test_worked_example_second_candidate_accepted():
    what = "the worked example (reject token 1; then 0.1 < 0.125 / 0.75: accept token 2)"
    assert check_case(P, TOP2, Q, [0.6, 0.1], what) == 2


@pytest.mark.task(1)
def test_worked_example_both_rejected():
    what = "the worked example (both rejected; what is left, [0.8, 0, 0, 0.2], gives token 0 at u = 0.7)"
    assert check_case(P, TOP2, Q, [0.6, 0.5, 0.7], what) == 0


# Task 2: the accept test ----------------------------------------------------------------------------

@pytest.mark.task(2)
def test_u_equal_to_the_chance_rejects():
    what = "u = 0.25 = p(1) (u < left(x) / Σ left is strict, so this must reject)"
    assert check_case(P, [1, 0], Q, [0.25, 0.7], what) == 3


@pytest.mark.task(2)
def test_the_chance_is_renormalised_after_a_rejection():
    what = "u = 0.5 after rejecting token 1 (token 0 then has chance 0.5 / 0.75 = 2/3: accept)"
    assert check_case(P, [1, 0], Q, [0.9, 0.5], what) == 0


@pytest.mark.task(2)
def test_a_candidate_the_target_gives_zero_still_takes_a_draw():
    p = [0.0, 0.5, 0.5]
    what = "candidate 0 with p = 0 (u = 0 does not accept it: 0 < 0 is false; its test still draws)"
    assert check_case(p, [0, 1], [0.6, 0.3, 0.1], [0.0, 0.4], what) == 1


@pytest.mark.task(2)
def test_candidates_are_tried_in_the_order_given():
    what = "candidates [2, 1] (token 2 is tried first: 0.1 < 0.125)"
    assert check_case(P, [2, 1], Q, [0.1, 0.1], what) == 2


# Task 3: how many candidates ----------------------------------------------------------------------

@pytest.mark.parametrize("candidates", [[], np.array([], dtype=np.int64)], ids=["list", "array"])
@pytest.mark.task(3)
def test_no_candidates_samples_once_from_p(candidates):
    assert check_case(P, candidates, Q, [0.8], "no candidates (k = 0: one sample from p)") == 2


@pytest.mark.task(3)
def test_every_token_a_candidate_accepts_the_last_one_left():
    p = [0.5, 0.25, 0.25]
    what = "every token a candidate (the last one left holds all the mass: chance 1)"
    assert check_case(p, [0, 1, 2], [0.4, 0.3, 0.3], [0.9, 0.9, 0.99], what) == 2


@pytest.mark.parametrize("rejected", range(3))
@pytest.mark.task(3)
def test_a_rejection_moves_on_to_the_next_candidate(rejected):
    p, q, candidates = [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], [0, 1, 2]
    uniforms = [0.99] * rejected + [0.01]
    assert check_case(p, candidates, q, uniforms, f"{rejected} rejection(s), then an accept") == candidates[rejected]


# Task 4: nothing left ----------------------------------------------------------------------------------

@pytest.mark.task(4)
def test_what_is_left_without_mass_samples_from_p():
    p = [1 - 5e-13, 5e-13, 0.0]  # after rejecting token 0 only 5e-13 is left: at most 1e-12
    what = "a rejection that leaves 5e-13 of mass (at most 1e-12: sample from p, and try no more candidates)"
    assert check_case(p, [0, 1], [0.5, 0.3, 0.2], [0.9999999999999, 0.5], what) == 0


# Task 5: inputs and outputs -----------------------------------------------------------------------------

@pytest.mark.task(5)
def test_accepts_numpy_inputs_and_returns_a_plain_int():
    token = check_case(np.array(P), np.array(TOP2), np.array(Q), [0.6, 0.1], "numpy inputs")
    assert token == 2


@pytest.mark.task(5)
def test_does_not_modify_its_inputs():
    p, candidates, q = np.array(P), np.array(TOP2), np.array(Q)
    run_learner(p, candidates, q, [0.6, 0.5, 0.7, 0.5])
    if not (np.array_equal(p, P) and np.array_equal(q, Q) and candidates.tolist() == TOP2):
        raise GradingFailure("verify_top_k changed its input arrays in place (set p(x) = 0 in a copy).")


# Task 6: random cases against the reference ---------------------------------------------------------

RANDOM_CASES = 60  # per vocabulary size


def random_case(gen, vocab: int):
    """p and q of a random style (tests/shared/cases.py); candidates the draft's top k (or, one
    time in three, k distinct tokens in a random order); uniforms at least 1e-9 from every
    decision boundary."""
    p, q = random_pair(gen, vocab, PAIR_STYLES[int(gen.integers(len(PAIR_STYLES)))])
    k = int(gen.integers(0, min(vocab, 5) + 1))
    if gen.random() < 1 / 3:
        candidates = gen.permutation(vocab)[:k].tolist()
    else:
        candidates = np.argsort(-q, kind="stable")[:k].tolist()
    while True:
        uniforms = gen.random(k + 1).tolist()
        trace = reference_trace(p, candidates, uniforms + list(SPARE))
        if trace.margin() > 1e-9:
            return p, candidates, q, uniforms[: trace.draws]


@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 5, 17, 100])
@pytest.mark.task(6)
def test_random_cases_match_the_reference(vocab):
    gen = case_rng(1600 + vocab)
    for index in range(RANDOM_CASES):
        p, candidates, q, uniforms = random_case(gen, vocab)
        try:
            check_case(p, candidates, q, uniforms, f"random case {index} of {RANDOM_CASES} (V = {vocab})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing random case; cases before it passed.)", detail=failure.detail) from None


# Task 7: the token is distributed as p ----------------------------------------------------------------

STAT_P = np.array([0.30, 0.25, 0.15, 0.05, 0.15, 0.10])
STAT_Q = np.array([0.40, 0.30, 0.20, 0.05, 0.03, 0.02])
STAT_CANDIDATES = [0, 1, 2]  # the draft's top 3: deterministic, not samples from q
STAT_RUNS = 2_000
STAT_SEED = 20261216
STAT_ALPHA = 1e-3


def token_counts(verify, runs: int = STAT_RUNS, seed: int = STAT_SEED) -> np.ndarray:
    gen = np.random.default_rng(seed)
    counts = np.zeros(len(STAT_P), dtype=np.int64)
    for stream in gen.random((runs, len(STAT_CANDIDATES) + 1)):
        token = call_learner(verify, STAT_P, STAT_CANDIDATES, STAT_Q, ReplayRNG(stream), case="(statistical test)")
        counts[token] += 1
    return counts


def token_chi_square(verify, runs: int = STAT_RUNS, seed: int = STAT_SEED) -> tuple[float, float, np.ndarray]:
    """Pearson's chi-square of the emitted tokens against p: (statistic, p-value, counts)."""
    counts = token_counts(verify, runs, seed)
    statistic, _, pvalue, _ = chi_square_test(counts, STAT_P)
    return statistic, pvalue, counts


@pytest.mark.statistical
@pytest.mark.task(7)
def test_token_is_distributed_as_p_for_top_3_candidates():
    """Chi-square goodness of fit of the emitted token against p, candidates the draft's top 3.

    Statistic: Pearson's chi-square over the 6 tokens (5 degrees of freedom), 2,000 runs with a
    fixed seed (so the verdict never changes between runs). Threshold: fail when the p-value is
    below 1e-3. Power: accepting with min(1, p/q) (the draft's probabilities plugged into
    exercise 01's test) gives the tokens [0.75, 0.21, 0.03, 0.002, 0.005, 0.003] here, an expected
    statistic of about 2,100; accepting with the original p(x) (not renormalised) about 255; a
    final sample from p instead of what is left about 420. tests/maintainer/test_margins_chi_square.py
    checks that the reference's p-value at this seed clears 0.05 and those mutants score below 1e-6.
    """
    statistic, pvalue, counts = token_chi_square(verify_top_k())
    if pvalue < STAT_ALPHA:
        raise GradingFailure(
            "The token verify_top_k emits is not distributed as the target p.\n"
            f"  runs: {STAT_RUNS}, candidates {STAT_CANDIDATES} (the top 3 of q = {STAT_Q.tolist()})\n"
            f"  observed frequencies: {(counts / STAT_RUNS).round(4).tolist()}\n"
            f"  target p:             {STAT_P.tolist()}\n"
            f"  chi-square = {statistic:.1f} (5 degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            "A common cause: accepting with min(1, p(x)/q(x)). The candidates were not sampled from q, so "
            "the chance to accept x is left(x) / Σ left, where left is p without the rejected candidates."
        )


# Task 8: bad input -------------------------------------------------------------------------------------

BAD_INPUTS = {
    "q-with-another-vocabulary": (P, TOP2, [0.5, 0.5], ("shape",), "q with 2 tokens where p has 4"),
    "p-with-two-rows": ([P, P], TOP2, Q, ("shape",), "p of shape (2, 4) (one position at a time)"),
    "empty-p": ([], [], [], ("shape",), "empty p and q"),
    "candidate-past-the-vocabulary": (P, [1, 4], Q, ("out of range",), "candidate 4 in a vocabulary of 4"),
    "negative-candidate": (P, [-1, 2], Q, ("out of range",), "candidate -1"),
    "repeated-candidate": (P, [1, 2, 1], Q, ("distinct",), "candidates [1, 2, 1]"),
    "fractional-candidate": (P, [1.5], Q, ("integer",), "candidate 1.5"),
    "candidates-as-a-matrix": (P, [[1, 2]], Q, ("1-D",), "candidates of shape (1, 2)"),
    "negative-probability": ([0.6, 0.25, 0.25, -0.1], TOP2, Q, ("negative",), "p = [0.6, 0.25, 0.25, -0.1]"),
    "nan-probability": (P, TOP2, [np.nan, 0.4, 0.3, 0.3], ("NaN",), "a NaN in q"),
    "row-summing-to-1.1": (P, TOP2, [0.3, 0.4, 0.3, 0.1], ("sum to 1",), "q summing to 1.1"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(8)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    p, candidates, q, mentions, problem = BAD_INPUTS[name]
    expect_value_error(verify_top_k(), p, candidates, q, ReplayRNG([0.5] * 5), mentions=mentions, problem=problem)
