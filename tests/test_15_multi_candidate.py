"""Grading suite for exercise 15-multi-candidate: several candidates for one position.

verify_candidates (i.i.d. candidates) and verify_candidates_without_replacement replay fixed
streams; every case checks the (token, index) result AND the number of draws against an
independent reference (tests/reference/ex15_reference.py). Streams carry spare uniforms, so
drawing too many shows up as a wrong count. Two chi-square tests with fixed seeds check that the
emitted token is distributed as p when the candidates are drawn from q, and acceptance_probability
is compared with the reference's enumeration of whole candidate sequences to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata import ReplayRNG
from speckata.grading import GradingFailure, expect_value_error
from tests.reference.ex15_cases import (
    EXERCISE,  # noqa: F401  (the exercise this suite grades)
    IID,
    WITHOUT,
    acceptance_probability,
    check_case,
    check_distributed_as_p,
    check_probability,
    check_random_cases,
    verifier,
)
from tests.reference.ex15_inputs import BAD_INPUTS, PROBABILITY_BAD_INPUTS, WITHOUT_REPLACEMENT_BAD_INPUTS, P, Q
from tests.reference.ex15_reference import iid_closed_form
from tests.shared.cases import PAIR_STYLES, case_rng, random_pair

# Task 1: verify_candidates -------------------------------------------------------------------------

@pytest.mark.task(1)
def test_iid_worked_example_second_candidate_accepted():
    assert check_case(P, Q, [0, 2], [0.6, 0.9], IID, "the worked example (0 rejected, 2 accepted against p_1)") == (2, 1)


@pytest.mark.task(1)
def test_iid_worked_example_repeated_candidate_all_rejected():
    assert check_case(P, Q, [0, 0], [0.6, 0.1, 0.5], IID, "the worked example (p_1(0) = 0 rejects the repeat)") == (1, None)


@pytest.mark.task(1)
def test_iid_first_candidate_accepted_draws_once():
    assert check_case(P, Q, [1, 0, 2], [0.99], IID, "an accepted first candidate (p/q = 5/3: one draw, stop)") == (1, 0)


@pytest.mark.task(1)
def test_iid_u_equal_to_the_ratio_rejects():
    p, q = [0.2, 0.3, 0.5], [0.2, 0.6, 0.2]  # p/q for token 1 is exactly 0.5
    assert check_case(p, q, [1], [0.5, 0.7], IID, "u == p/q (u < p/q is strict, so this must reject)") == (2, None)


@pytest.mark.task(1)
def test_iid_u_zero_rejects_a_token_the_target_gives_zero_probability():
    p, q = [0.0, 0.5, 0.5], [0.5, 0.25, 0.25]
    assert check_case(p, q, [0, 1], [0.0, 0.3], IID, "u = 0 on a token with p = 0 (0 < 0 is false: reject)") == (1, 1)


@pytest.mark.task(1)
def test_iid_all_rejected_samples_from_the_last_target():
    p, q = [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]
    # p_1 = [0, 0, 1/4, 3/4], p_2 = [0, 0, 1/14, 13/14]: u = 0.15 picks 3 from p_2, 2 from p_1, 1 from p
    assert check_case(p, q, [0, 1], [0.9, 0.9, 0.15], IID, "two rejections (the sample comes from p_2, not p_1 or p)") == (3, None)


@pytest.mark.task(1)
def test_iid_a_residual_with_no_mass_keeps_p():
    p, q = [0.5, 0.5], [0.5000004, 0.5]  # q sums to 1 + 4e-7, within tolerance; p <= q everywhere
    check_case(p, q, [0, 0], [0.9999995, 0.9999995, 0.7], IID, "rejections whose residual max(p - q, 0) is all zeros")


@pytest.mark.task(1)
def test_iid_accepts_numpy_inputs_and_leaves_them_unchanged():
    p, q, candidates = np.array(P), np.array(Q), np.array([0, 2])
    check_case(p, q, candidates, [0.6, 0.9], IID, "numpy inputs")
    if not (np.array_equal(p, P) and np.array_equal(q, Q) and candidates.tolist() == [0, 2]):
        raise GradingFailure("verify_candidates changed its input arrays in place; work on copies.")


# Task 2: verify_candidates_without_replacement ---------------------------------------------------

@pytest.mark.task(2)
def test_without_replacement_worked_example_all_rejected():
    assert check_case(P, Q, [0, 2], [0.6, 0.9, 0.5], WITHOUT, "the worked example (q_1 = [0, 0.6, 0.4])") == (1, None)


@pytest.mark.task(2)
def test_without_replacement_second_candidate_accepted():
    assert check_case(P, Q, [0, 1], [0.6, 0.95], WITHOUT, "0 rejected, then 1 at p_1(1)/q_1(1) = 10/9") == (1, 1)


@pytest.mark.task(2)
def test_without_replacement_u_equal_to_the_ratio_rejects():
    p, q = [0.2, 0.3, 0.5], [0.2, 0.6, 0.2]  # p/q for token 1 is exactly 0.5
    assert check_case(p, q, [1, 2], [0.5, 0.7], WITHOUT, "u == p/q (strict: reject), then 2 at p_1(2)/q_1(2) = 2") == (2, 1)


@pytest.mark.task(2)
def test_without_replacement_u_zero_rejects_a_token_the_target_gives_zero_probability():
    p, q = [0.0, 0.5, 0.5], [0.5, 0.25, 0.25]
    assert check_case(p, q, [0, 1], [0.0, 0.3], WITHOUT, "u = 0 on a token with p = 0 (0 < 0 is false: reject)") == (1, 1)


@pytest.mark.task(2)
def test_without_replacement_the_residual_uses_q_before_the_removal():
    p, q = [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]
    # p_1 = max(p - q_0, 0) normalised = [0, 0, 1/4, 3/4] and p_2 = [0, 0, 0, 1]; taking each residual
    # against the q after the removal gives p_2 = [0.45, 0, 0, 0.55], and never updating p leaves p itself
    assert check_case(p, q, [0, 1], [0.9, 0.9, 0.2], WITHOUT, "two rejections (p_1 from q_0, p_2 from q_1)") == (3, None)


@pytest.mark.task(2)
def test_without_replacement_every_proposable_token_rejected():
    p, q = [0.2, 0.8], [1.0, 0.0]  # after removing 0, q has nothing left: p_1 = [0, 1] all the same
    assert check_case(p, q, [0], [0.5, 0.3], WITHOUT, "the only token q can propose, rejected") == (1, None)


@pytest.mark.task(2)
def test_without_replacement_a_residual_with_no_mass_keeps_p():
    p, q = [0.5, 0.5], [0.5000004, 0.5]  # p <= q everywhere: p_1 = p; q_1 = [0, 1]; p_2 = [1, 0]
    assert check_case(p, q, [0, 1], [0.9999995, 0.7, 0.9], WITHOUT, "a rejection whose residual is all zeros") == (0, None)


@pytest.mark.task(2)
def test_without_replacement_accepts_numpy_inputs_and_leaves_them_unchanged():
    p, q, candidates = np.array(P), np.array(Q), np.array([0, 2])
    check_case(p, q, candidates, [0.6, 0.9, 0.5], WITHOUT, "numpy inputs")
    if not (np.array_equal(p, P) and np.array_equal(q, Q) and candidates.tolist() == [0, 2]):
        raise GradingFailure("verify_candidates_without_replacement changed its input arrays in place; work on copies.")


# Task 3: acceptance_probability --------------------------------------------------------------------

WORKED = {  # (k, without_replacement): the theory page's table for P, Q
    (1, IID): 0.7, (2, IID): 0.85, (3, IID): 0.925,
    (1, WITHOUT): 0.7, (2, WITHOUT): 0.98, (3, WITHOUT): 1.0,
}


@pytest.mark.parametrize("k, without_replacement", WORKED, ids=[f"k{k}-{'without' if w else 'iid'}" for k, w in WORKED])
@pytest.mark.task(3)
def test_worked_example_table(k, without_replacement):
    check_probability(P, Q, k, without_replacement, f"the worked example with k = {k}", WORKED[k, without_replacement])


@pytest.mark.generated
@pytest.mark.task(3)
def test_one_candidate_is_the_acceptance_rate_on_generated_pairs():
    """Property: with k = 1 both variants give Σ min(p, q), for 40 pairs (seed 1501, every style)."""
    gen = case_rng(1501)
    for index in range(40):
        p, q = random_pair(gen, 2 + index % 5, PAIR_STYLES[index % len(PAIR_STYLES)])
        for without_replacement in (IID, WITHOUT):
            check_probability(p, q, 1, without_replacement, f"generated pair {index} with k = 1 (Σ min(p, q))",
                              float(np.minimum(p, q).sum()))


@pytest.mark.generated
@pytest.mark.task(3)
def test_iid_matches_the_closed_form_of_the_deterministic_chain():
    """In the i.i.d. rule p_j does not depend on the draws: 1 - Π (1 - Σ min(p_j, q)); 30 pairs, seed 1502."""
    gen = case_rng(1502)
    for index in range(30):
        p, q = random_pair(gen, 3 + index % 3, PAIR_STYLES[index % len(PAIR_STYLES)])
        k = 1 + index % 4
        check_probability(p, q, k, IID, f"generated pair {index} with k = {k}", iid_closed_form(p, q, k))


# Task 1: verify_candidates ---------------------------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 5, 17])
@pytest.mark.task(1)
def test_iid_random_cases_match_the_reference(vocab):
    check_random_cases(vocab, IID, 1510 + vocab)


# Task 2: verify_candidates_without_replacement -------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("vocab", [2, 3, 5, 17])
@pytest.mark.task(2)
def test_without_replacement_random_cases_match_the_reference(vocab):
    check_random_cases(vocab, WITHOUT, 1530 + vocab)


# Task 3: acceptance_probability ----------------------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("without_replacement", [IID, WITHOUT], ids=["iid", "without-replacement"])
@pytest.mark.task(3)
def test_generated_pairs_match_the_enumeration(without_replacement):
    """24 pairs (seed 1550/1551, every style, V = 2 to 5), k from 1 to 4, against the reference's enumeration."""
    gen = case_rng(1550 + without_replacement)
    for index in range(24):
        p, q = random_pair(gen, 2 + index % 4, PAIR_STYLES[index % len(PAIR_STYLES)])
        most = min(4, int(np.count_nonzero(q))) if without_replacement else 4
        k = 1 + index % most
        check_probability(p, q, k, without_replacement, f"generated pair {index} with k = {k}")


# Task 1: verify_candidates ---------------------------------------------------------------------------

@pytest.mark.statistical
@pytest.mark.task(1)
def test_iid_emitted_token_is_distributed_as_p():
    """Chi-square goodness of fit of the emitted token against p, candidates drawn i.i.d. from q.

    Statistic: Pearson's chi-square over the 4 tokens (3 degrees of freedom), 2,000 runs of 3
    candidates with fixed seeds (so the verdict never changes between runs). Threshold: fail when the
    p-value is below 1e-3 (statistic above 16.3). Power: at this seed the biased rules score 1,240
    (p never updated), 274 (q updated as if drawn without replacement), 315 (the final sample from the
    original p) and 14,949 (residual max(q - p, 0)); the reference scores 3.4 (p-value 0.34).
    tests/maintainer/test_margins_chi_square.py checks that the reference clears 0.05 and that every
    biased mutant scores a p-value below 1e-6.
    """
    check_distributed_as_p(IID, "not replacing p by the normalised max(p - q, 0) after a rejection, or changing q.")


# Task 2: verify_candidates_without_replacement -------------------------------------------------------

@pytest.mark.statistical
@pytest.mark.task(2)
def test_without_replacement_emitted_token_is_distributed_as_p():
    """Chi-square goodness of fit of the emitted token against p, candidates drawn without replacement.

    Statistic: Pearson's chi-square over the 4 tokens (3 degrees of freedom), 2,000 runs of 3
    distinct candidates with fixed seeds. Threshold: fail when the p-value is below 1e-3 (statistic
    above 16.3). Power: at this seed the biased rules score 723 (p never updated), 1,923 (rejected
    tokens left in q), 9,549 (residual taken against q after the removal) and 3,485 (residual
    max(q - p, 0)); the reference scores 2.3 (p-value 0.51). tests/maintainer/test_margins_chi_square.py
    checks that the reference clears 0.05 and that every biased mutant scores a p-value below 1e-6.
    """
    check_distributed_as_p(WITHOUT, "leaving a rejected token in q (renormalise q without it), or not updating p.")


# Task 1: verify_candidates ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(1)
def test_iid_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, candidates, mentions, problem = BAD_INPUTS[name]
    expect_value_error(verifier(IID), p, q, candidates, ReplayRNG([0.5] * 4), mentions=mentions, problem=problem)


# Task 2: verify_candidates_without_replacement -------------------------------------------------------

@pytest.mark.parametrize("name", WITHOUT_REPLACEMENT_BAD_INPUTS)
@pytest.mark.task(2)
def test_without_replacement_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, candidates, mentions, problem = WITHOUT_REPLACEMENT_BAD_INPUTS[name]
    expect_value_error(verifier(WITHOUT), p, q, candidates, ReplayRNG([0.5] * 4), mentions=mentions, problem=problem)


# Task 3: acceptance_probability ----------------------------------------------------------------------

@pytest.mark.parametrize("name", PROBABILITY_BAD_INPUTS)
@pytest.mark.task(3)
def test_acceptance_probability_bad_input_raises_a_value_error_naming_the_problem(name):
    p, q, k, without_replacement, mentions, problem = PROBABILITY_BAD_INPUTS[name]
    expect_value_error(acceptance_probability(), p, q, k, without_replacement, mentions=mentions, problem=problem)
