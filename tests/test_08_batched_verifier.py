"""Grading suite for exercise 08-batched-verifier: speculative_step_batched(target_probs,
draft_probs, draft_tokens, generator).

Every case runs the learner's verifier on a seeded generator, draws u and v as the contract says
on a generator seeded alike, and checks every row against exercise 01's independent reference
(tests/reference/ex01_reference.py) fed that row's uniforms; the generators' states must agree
afterwards. The cost is checked by counting, not timing (tests/reference/ex08_cost.py).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from speckata.grading import GradingFailure, call_learner, expect_value_error
from tests.reference.ex08_cases import ACCEPT_ROW, BONUS_ROW, Q_ROW, REJECT_ROW, forced_batch, random_batch
from tests.reference.ex08_checks import (
    EXERCISE,  # noqa: F401  (the exercise this suite grades)
    STAT_ALPHA,
    STAT_P,
    STAT_ROWS,
    STAT_SEED,
    check_batch,
    check_form,
    position_pvalues,
    speculative_step_batched,
)
from tests.reference.ex08_cost import measure
from tests.reference.ex08_reference import PAD, contract_uniforms, expected_rows, make_generator
from tests.reference.ex08_report import describe_batch
from tests.shared.cases import case_rng

DTYPES = [torch.float32, torch.float64]
DTYPE_IDS = ["float32", "float64"]


# Task 1: the worked example --------------------------------------------------------------------

ACCEPTING, REJECTING, BONUS = [0.2, 0.6, 0.2], [0.5, 0.0, 0.5], [0.05, 0.05, 0.9]


@pytest.mark.task(1)
def test_worked_example():
    target = torch.tensor([[ACCEPTING, ACCEPTING, BONUS], [ACCEPTING, REJECTING, BONUS], [REJECTING, ACCEPTING, BONUS]], dtype=torch.float64)
    draft = torch.tensor([0.2, 0.5, 0.3], dtype=torch.float64).expand(3, 2, 3).contiguous()
    tokens, accepted = check_batch(target, draft, torch.ones(3, 2, dtype=torch.int64), 0, "the worked example")
    assert (tokens, accepted) == ([[1, 1, 2], [1, 0, -1], [0, -1, -1]], [2, 1, 0])


# Task 2: every row keeps its own prefix ------------------------------------------------------------
# Forced batches (tests/reference/ex08_cases.py): each position's p/q is 7/6 ('a', always accepted)
# or 0 ('r', always rejected, the residual all on token 0), so every row's count is known.

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(2)
def test_rows_accept_different_numbers_of_drafts(dtype):
    target, draft, tokens = forced_batch(["raaa", "arar", "aara", "aaar", "aaaa", "raar"], dtype)
    for seed in range(4):
        _, accepted = check_batch(target, draft, tokens, seed, "rows accepting 0, 1, 2, 3, 4 and 0 drafts")
        assert accepted == [0, 1, 2, 3, 4, 0]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(2)
def test_a_batch_that_accepts_everything_takes_bonus_tokens_from_row_gamma(dtype):
    for seed in range(4):
        _, accepted = check_batch(*forced_batch(["aaa"] * 6, dtype), seed, "a batch accepting every draft")
        assert accepted == [3] * 6


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(2)
def test_a_batch_that_rejects_every_first_draft(dtype):
    for seed in range(4):
        tokens, accepted = check_batch(*forced_batch(["raa", "rrr", "rar"] * 2, dtype), seed, "a batch rejecting every first draft")
        assert accepted == [0] * 6 and all(row == [0, PAD, PAD, PAD] for row in tokens)


@pytest.mark.task(2)
def test_an_accept_after_a_rejection_does_not_count():
    tokens, accepted = check_batch(*forced_batch(["raaaa", "araaa"]), 0, "accepts after the first rejection")
    assert accepted == [0, 1]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(2)
def test_gamma_zero_draws_one_token_per_row_from_target_row_zero(dtype):
    target = torch.tensor([[BONUS_ROW], [REJECT_ROW], [ACCEPT_ROW], [Q_ROW]], dtype=dtype)
    for seed in range(3):
        tokens, accepted = check_batch(target, torch.empty(4, 0, 4, dtype=dtype), torch.empty(4, 0, dtype=torch.int64), seed, "γ = 0")
        assert accepted == [0] * 4


# Task 3: the accept test is strict ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(3)
def test_u_equal_to_the_ratio_rejects(dtype):
    # p/q at every row's first drafted token is exactly that row's u[b, 0].
    batch, seed = 8, 5
    u, _ = contract_uniforms(make_generator(seed), batch, 2, dtype, "cpu")
    first = torch.stack([u[:, 0] / 2, (1 - u[:, 0] / 2) / 2, 1 - u[:, 0] / 2 - (1 - u[:, 0] / 2) / 2], dim=1)
    others = torch.tensor([ACCEPTING, BONUS], dtype=dtype).expand(batch, 2, 3)
    target = torch.cat([first.unsqueeze(1), others], dim=1)
    draft = torch.tensor([[0.5, 0.25, 0.25], [0.2, 0.5, 0.3]], dtype=dtype).expand(batch, 2, 3).contiguous()
    tokens = torch.tensor([[0, 1]] * batch)
    assert torch.equal(target[:, 0, 0] / draft[:, 0, 0], u[:, 0])
    _, accepted = check_batch(target, draft, tokens, seed, "rows whose u equals p/q (u < p/q is strict: reject)", compare_all=True)
    assert accepted == [0] * batch


# Task 4: many random batches against exercise 01's reference ---------------------------------------

SHAPES = [(64, 4, 5), (32, 7, 50), (40, 1, 2), (24, 3, 300), (1, 5, 17)]
RANDOM_BATCHES = 2  # per shape and dtype: 644 rows in all


@pytest.mark.generated
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("batch, gamma, vocab", SHAPES, ids=[f"B{b}-g{g}-V{v}" for b, g, v in SHAPES])
@pytest.mark.task(4)
def test_random_batches_match_exercise_01_row_by_row(batch, gamma, vocab, dtype):
    gen = case_rng(800 + batch + gamma + vocab)
    for index in range(RANDOM_BATCHES):
        target, draft, tokens = random_batch(gen, batch, gamma, vocab, dtype)
        check_batch(target, draft, tokens, int(gen.integers(2**31)), f"random batch {index} (B = {batch}, γ = {gamma}, V = {vocab})",
                    minimum_compared=0.9 if batch > 1 else 0.0)


# Task 5: a residual with no mass -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(5)
def test_a_residual_with_no_mass_samples_from_p(dtype):
    # p <= q everywhere at position 0 (q sums to 1 + 4e-7), so max(0, p - q) is all zeros.
    target = torch.tensor([[[0.0, 1.0], [0.5, 0.5]], [[0.5, 0.5], [0.3, 0.7]]], dtype=dtype)
    draft = torch.tensor([[[4e-7, 1.0]], [[0.5, 0.5]]], dtype=dtype)
    tokens, accepted = check_batch(target, draft, torch.tensor([[0], [0]]), 3, "a rejection whose residual has no mass")
    assert tokens[0] == [1, PAD]


# Task 6: the random contract -----------------------------------------------------------------------

@pytest.mark.task(6)
def test_no_generator_means_the_global_generator():
    target, draft, tokens = forced_batch(["aa", "ar", "ra"])
    saved = torch.get_rng_state()
    try:
        torch.manual_seed(9)
        result = call_learner(speculative_step_batched(), target, draft, tokens, case="called without a generator")
        state_after = torch.get_rng_state()
    finally:
        torch.set_rng_state(saved)
    expected_generator = make_generator(9)
    u, v = contract_uniforms(expected_generator, 3, 2, torch.float64, "cpu")
    expected = expected_rows(target, draft, tokens, u, v)
    check_form(result, 3, 2, "cpu")
    if result.tokens.tolist() != [row.tokens for row in expected] or not torch.equal(state_after, expected_generator.get_state()):
        raise GradingFailure(
            "With generator=None, speculative_step_batched must draw u and v from torch's global generator (pass "
            "generator=None through to torch.rand); its tokens or the global generator's state differ from that.\n"
            f"  yours:    {result.tokens.tolist()}\n  expected: {[row.tokens for row in expected]}"
        )


# Task 7: the cost: no loop, nothing of size B·γ·V ----------------------------------------------------

def cost_of(batch: int, gamma: int, vocab: int = 300):
    target, draft, tokens = random_batch(np.random.default_rng(batch * 100 + gamma), batch, gamma, vocab, torch.float32)
    _, cost = measure(lambda: call_learner(speculative_step_batched(), target, draft, tokens, make_generator(1),
                                           case=describe_batch(target, draft, tokens, 1)))
    return cost


@pytest.mark.cost
@pytest.mark.task(7)
def test_the_number_of_operations_does_not_grow_with_the_batch_or_gamma():
    small, large = cost_of(2, 2), cost_of(24, 14)
    if large.operations > small.operations + 8:
        raise GradingFailure(
            f"speculative_step_batched ran {small.operations} torch operations for B = 2, γ = 2 but {large.operations} "
            "for B = 24, γ = 14: the count grows with the batch or γ, so some Python loop runs torch code per row or per "
            "position. Verify all rows and positions at once (gather, comparisons, cumprod, torch.where)."
        )


@pytest.mark.cost
@pytest.mark.task(7)
def test_no_tensor_as_large_as_the_inputs_is_built():
    batch, gamma, vocab = 24, 14, 300
    cost = cost_of(batch, gamma, vocab)
    limit = 2 * batch * vocab
    if cost.largest > limit:
        raise GradingFailure(
            f"With B = {batch}, γ = {gamma}, V = {vocab} your code allocated a tensor of {cost.largest} numbers "
            f"({cost.largest_by}); the limit is 2·B·V = {limit}. Only each row's rejection position needs a residual: "
            "gather one row of p and one row of q per batch element (target_probs[rows, num_accepted]) instead of "
            "working on whole (B, γ, V) tensors."
        )


# Task 8: the output is distributed exactly as p, at every position ---------------------------------

@pytest.mark.statistical
@pytest.mark.task(8)
def test_the_token_at_every_position_is_distributed_as_p():
    """Chi-square goodness of fit of the token emitted at each position j against p[j].

    Statistic: Pearson's chi-square over the 5 tokens (4 degrees of freedom) at each of the γ+1 = 4
    positions, over the rows that emitted a token there, from one call on 30,000 rows (drafts
    sampled from q; fixed seeds, so the verdict never changes between runs). By exactness the token
    at position j, given that the row got that far, is distributed as p[j].
    Threshold: fail when any position's p-value is below 1e-3 / 4 (Bonferroni over the positions).
    tests/maintainer/test_margins_chi_square.py checks the reference clears it with room to spare
    and that a batch-minimum verifier and a replacement drawn from p fail it far below.
    """
    for j, (emitted, pvalue, frequencies) in enumerate(position_pvalues(speculative_step_batched(), STAT_ROWS, STAT_SEED)):
        if pvalue < STAT_ALPHA / len(STAT_P):
            raise GradingFailure(
                f"The token speculative_step_batched emits at position {j} is not distributed as the target p[{j}].\n"
                f"  rows: {STAT_ROWS}, of which {emitted} emitted a token at position {j}\n"
                f"  observed frequencies: {frequencies.round(4).tolist()}\n"
                f"  target p[{j}]:          {STAT_P[j].tolist()}\n"
                f"  chi-square p-value = {pvalue:.2e} < {STAT_ALPHA / len(STAT_P):.2e}\n"
                "Common causes: cutting every row to the batch's minimum, or drawing a rejection's replacement from "
                "p instead of the residual max(0, p - q)."
            )


# Task 9: bad input -----------------------------------------------------------------------------

def good(dtype=torch.float32):
    target, draft, tokens = forced_batch(["aa", "ar"])
    return target.to(dtype), draft.to(dtype), tokens


def with_value(tensor, index, value):
    tensor = tensor.clone()
    tensor[index] = value
    return tensor


T, D, K = good()
BAD_INPUTS = {
    "target-without-a-batch-dimension": ((T[0], D, K), ("shape",), "target_probs of shape (γ+1, V)"),
    "draft-with-another-gamma": ((T, D[:, :1], K), ("shape",), "draft_probs with 1 position for γ = 2"),
    "tokens-for-another-batch": ((T, D, K[:1]), ("shape",), "draft_tokens with 1 row for B = 2"),
    "draft-with-another-vocabulary": ((T, D[:, :, :3], K), ("shape",), "draft_probs with 3 columns where target_probs has 4"),
    "token-past-the-vocabulary": ((T, D, with_value(K, (1, 1), 4)), ("out of range",), "draft token 4 in a vocabulary of 4"),
    "negative-token": ((T, D, with_value(K, (0, 0), -1)), ("out of range",), "draft token -1"),
    "token-the-draft-could-not-propose": ((T, with_value(D, (1, 0, 1), 0.0), K), ("zero probability",), "q[1, 0, 1] = 0 at a drafted token"),
    "nan-at-a-drafted-token": ((with_value(T, (0, 1, 1), float("nan")), D, K), ("NaN",), "a NaN in p at a drafted token"),
    "negative-at-a-drafted-token": ((T, with_value(D, (0, 0, 1), -0.3), K), ("negative",), "q = -0.3 at a drafted token"),
    "float-token-ids": ((T, D, K.float()), ("integer",), "token ids of dtype float32"),
    "integer-probabilities": ((T.long(), D.long(), K), ("dtype",), "probabilities of dtype int64"),
    "two-dtypes": ((T.double(), D, K), ("dtype",), "float64 target_probs with float32 draft_probs"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(9)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    (target, draft, tokens), mentions, problem = BAD_INPUTS[name]
    expect_value_error(speculative_step_batched(), target, draft, tokens, make_generator(0), mentions=mentions, problem=problem)


# Task 10: any device ---------------------------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(10)
def test_random_batches_on_cuda_match_exercise_01(dtype):
    # A CPU batch first: an untouched stub reads "not attempted", not "skipped".
    check_batch(*forced_batch(["aa", "ar"], dtype), 0, "a small batch on the CPU")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    gen = case_rng(88)
    for index in range(3):
        target, draft, tokens = random_batch(gen, 48, 5, 40, dtype, device="cuda")
        check_batch(target, draft, tokens, int(gen.integers(2**31)), f"random CUDA batch {index}", minimum_compared=0.9)


# Task 11: probabilities that require grad (a model's softmax, say) are accepted ---------------------

@pytest.mark.task(11)
def test_probabilities_that_require_grad_are_accepted():
    target = torch.tensor([[ACCEPTING, ACCEPTING, BONUS], [ACCEPTING, REJECTING, BONUS], [REJECTING, ACCEPTING, BONUS]], dtype=torch.float64)
    draft = torch.tensor([0.2, 0.5, 0.3], dtype=torch.float64).expand(3, 2, 3).contiguous()
    tokens = torch.ones(3, 2, dtype=torch.int64)
    plain = check_batch(target, draft, tokens, 0, "the worked example")
    result = call_learner(speculative_step_batched(), target.clone().requires_grad_(), draft.clone().requires_grad_(),
                          tokens, make_generator(0, "cpu"), case="target_probs and draft_probs with requires_grad=True")
    check_form(result, 3, 2, "cpu")
    if (result.tokens.tolist(), result.num_accepted.tolist()) != plain:
        raise GradingFailure(
            "speculative_step_batched must treat probabilities that require grad like any others (work under "
            f"torch.no_grad()): it returned {result.tokens.tolist()} where the same call without grad gives {plain[0]}."
        )
