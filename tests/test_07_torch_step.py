"""Grading suite for exercise 07-torch-step: speculative_decode_step(draft_probs, target_probs,
draft_tokens, generator).

Every case runs the learner's function and an independent reference
(tests/reference/ex07_reference.py) on two generators seeded alike, then compares the tokens, the
number accepted AND the generators' states: a draw too many or too few shows up even when the
tokens agree.
"""

from __future__ import annotations

import pytest
import torch

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex07_reference import make_generator, reference_step
from tests.reference.ex07_report import describe_case, mismatch_report, state_headline, stream_notes
from tests.shared.cases import case_rng, random_verify_case

EXERCISE = "07-torch-step"
DTYPES = [torch.float32, torch.float64]
DTYPE_IDS = ["float32", "float64"]


def speculative_decode_step():
    return learner_function(EXERCISE, "speculative_decode_step")


def check_form(result, device) -> None:
    """(tokens, num_accepted): an int64 tensor on the inputs' device and a plain int."""
    if not isinstance(result, tuple) or len(result) != 2:
        raise GradingFailure(f"speculative_decode_step must return a tuple (tokens, num_accepted); it returned {result!r}")
    tokens, num_accepted = result
    if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.int64 or tokens.ndim != 1:
        shown = f"a {tokens.dtype} tensor of shape {tuple(tokens.shape)}" if isinstance(tokens, torch.Tensor) else repr(tokens)
        raise GradingFailure(
            f"the tokens must be a 1-D int64 tensor (torch.tensor(tokens, dtype=torch.int64)); got {shown}"
        )
    if tokens.device != torch.device(device):
        raise GradingFailure(f"the tokens must be on the inputs' device {device}; they are on {tokens.device}")
    if type(num_accepted) is not int:
        raise GradingFailure(
            f"num_accepted must be a plain Python int; got {type(num_accepted).__name__} {num_accepted!r}"
        )


def check_case(draft_probs, target_probs, draft_tokens, seed: int, what: str):
    """Run learner and reference on generators seeded with ``seed``; compare everything."""
    device = target_probs.device
    case = describe_case(draft_probs, target_probs, draft_tokens, seed)
    originals = [t.clone() for t in (draft_probs, target_probs, draft_tokens)]
    generator = make_generator(seed, device)
    result = call_learner(speculative_decode_step(), draft_probs, target_probs, draft_tokens, generator, case=case)
    reference_generator = make_generator(seed, device)
    trace = reference_step(draft_probs, target_probs, draft_tokens, reference_generator)
    check_form(result, device)
    tokens, num_accepted = result
    right = tokens.tolist() == trace.tokens and num_accepted == trace.num_accepted
    # A generator in another state explains wrong tokens better than the tokens do: report it first.
    if not torch.equal(generator.get_state(), reference_generator.get_state()):
        notes = stream_notes(draft_probs, target_probs, draft_tokens, seed, generator.get_state())
        raise mismatch_report(state_headline(what, right), case, trace, result, notes).failure()
    if not right:
        raise mismatch_report(f"speculative_decode_step got {what} wrong.", case, trace, result).failure()
    for before, now, name in zip(originals, (draft_probs, target_probs, draft_tokens), ("draft_probs", "target_probs", "draft_tokens")):
        if not torch.equal(before, now):
            raise GradingFailure(f"speculative_decode_step changed its input {name} in place; work on copies.\n\n{case}")
    return tokens.tolist(), num_accepted


# Task 1: the worked examples ------------------------------------------------------------------

SEED_DRAFT = [[0.1, 0.6, 0.1, 0.1, 0.1]]
SEED_TARGET = [[0.1, 0.6, 0.1, 0.1, 0.1], [0.2, 0.2, 0.2, 0.3, 0.1]]


@pytest.mark.task(1)
def test_worked_example_accept_and_bonus():
    result = check_case(torch.tensor(SEED_DRAFT), torch.tensor(SEED_TARGET), torch.tensor([1]), 0, "the worked example")
    assert result == ([1, 1], 1)


@pytest.mark.task(1)
def test_worked_example_rejection():
    target = torch.tensor([[0.3, 0.1, 0.2, 0.2, 0.2], SEED_TARGET[1]])
    result = check_case(torch.tensor(SEED_DRAFT), target, torch.tensor([1]), 0, "the worked example with a rejection")
    assert result == ([4], 0)


# Task 2: the accept test is strict --------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("seed", [3, 11, 42])
@pytest.mark.task(2)
def test_u_equal_to_the_ratio_rejects(dtype, seed):
    # Build p so that p/q at the drafted token is exactly the first uniform the generator gives.
    u = torch.rand((), generator=make_generator(seed), dtype=torch.float32).to(dtype)
    draft = torch.tensor([[0.5, 0.25, 0.25]], dtype=dtype)
    rest = (1 - u / 2) / 2
    target = torch.stack([torch.stack([u / 2, rest, 1 - u / 2 - rest]), torch.tensor([0.2, 0.3, 0.5], dtype=dtype)])
    assert float(target[0, 0] / draft[0, 0]) == float(u)
    tokens, accepted = check_case(draft, target, torch.tensor([0]), seed, f"u == p/q = {float(u):.6g} (u < p/q is strict: reject)")
    assert accepted == 0


# Task 3: how many tokens, and from which distribution ------------------------------------------
# q puts 0.3 on the drafted token 1. An accepting row has p/q > 1 there; a rejecting row has
# p = 0 there, and its residual max(0, p - q) is all on token 0, where p itself puts only 0.35.

Q_ROW = [0.05, 0.3, 0.05, 0.6]
ACCEPTING = [0.05, 0.35, 0.05, 0.55]
REJECTING = [0.35, 0.0, 0.05, 0.6]
BONUS_ROW = [0.0, 0.1, 0.9, 0.0]


def forced_case(gamma: int, reject_at: int | None, dtype=torch.float64):
    target = [REJECTING if i == reject_at else ACCEPTING for i in range(gamma)] + [BONUS_ROW]
    draft = torch.tensor([Q_ROW] * gamma, dtype=dtype).reshape(gamma, 4)
    return draft, torch.tensor(target, dtype=dtype), torch.ones(gamma, dtype=torch.int64)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(3)
def test_gamma_zero_draws_one_token_from_the_only_target_row(dtype):
    for seed in range(4):
        draft, target, tokens = forced_case(0, None, dtype)
        assert check_case(draft, target, tokens, seed, "K = 0 (no drafts: one token from target_probs[0])")[1] == 0


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(3)
def test_all_accepted_adds_a_bonus_token_from_the_last_row(dtype):
    for seed in range(6):
        draft, target, tokens = forced_case(3, None, dtype)
        result = check_case(draft, target, tokens, seed, "all three drafts accepted (bonus from target_probs[3])")
        assert result[1] == 3 and len(result[0]) == 4


@pytest.mark.parametrize("position", range(4))
@pytest.mark.task(3)
def test_a_rejection_stops_there_with_a_token_from_the_residual(position):
    for seed in range(6):
        draft, target, tokens = forced_case(4, position)
        result = check_case(draft, target, tokens, seed, f"a rejection at position {position}")
        assert result == ([1] * position + [0], position)


# Task 4: a residual with no mass ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(4)
def test_a_residual_with_no_mass_samples_target_row_i(dtype):
    # q sums to 1 + 4e-7 (within tolerance) and p <= q everywhere: max(0, p - q) is all zeros.
    draft = torch.tensor([[4e-7, 1.0]], dtype=dtype)
    target = torch.tensor([[0.0, 1.0], [0.5, 0.5]], dtype=dtype)
    result = check_case(draft, target, torch.tensor([0]), 7, "a rejection whose residual max(0, p - q) is all zeros")
    assert result == ([1], 0)


# Task 5: the random contract -------------------------------------------------------------------

@pytest.mark.task(5)
def test_no_generator_means_the_global_generator():
    draft, target, tokens = torch.tensor(SEED_DRAFT), torch.tensor(SEED_TARGET), torch.tensor([1])
    case = describe_case(draft, target, tokens, 5) + "\n  (called with no generator, after torch.manual_seed(5))"
    saved = torch.get_rng_state()
    try:
        torch.manual_seed(5)
        result = call_learner(speculative_decode_step(), draft, target, tokens, case=case)
        state_after = torch.get_rng_state()
    finally:
        torch.set_rng_state(saved)
    reference_generator = make_generator(5)
    trace = reference_step(draft, target, tokens, reference_generator)
    check_form(result, "cpu")
    if result[0].tolist() != trace.tokens or not torch.equal(state_after, reference_generator.get_state()):
        notes = stream_notes(draft, target, tokens, 5, state_after)
        raise mismatch_report(
            "With generator=None, speculative_decode_step must draw from torch's global generator (pass "
            "generator=None through to torch.rand and torch.multinomial); its tokens or the global state differ.",
            case, trace, result, notes,
        ).failure()


def random_case(gen, vocab: int, dtype, device="cpu"):
    """Rows as a real draft and target give them (tests/shared/cases.py), drafts sampled from q, and
    a seed whose uniforms all keep 1e-6 away from their ratios (so rounding the ratio differently is
    harmless)."""
    p, q, draft = random_verify_case(gen, vocab)
    draft_tokens = torch.tensor(draft, dtype=torch.int64, device=device)
    draft_probs = torch.tensor(q, dtype=dtype, device=device)
    target_probs = torch.tensor(p, dtype=dtype, device=device)
    while True:
        seed = int(gen.integers(2**31))
        trace = reference_step(draft_probs, target_probs, draft_tokens, make_generator(seed, device))
        if trace.margin() > 1e-6:
            return draft_probs, target_probs, draft_tokens, seed


RANDOM_CASES = 50  # per vocabulary size and dtype: 300 steps of every shape from K = 0 to 6


def check_random_cases(vocab: int, dtype, cases: int, seed: int, device="cpu") -> None:
    gen = case_rng(seed)
    for index in range(cases):
        draft_probs, target_probs, draft_tokens, generator_seed = random_case(gen, vocab, dtype, device)
        try:
            check_case(draft_probs, target_probs, draft_tokens, generator_seed, f"random case {index} of {cases} (V = {vocab})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing random case; cases before it passed.)", detail=failure.detail) from None


@pytest.mark.generated
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("vocab", [2, 5, 50])
@pytest.mark.task(5)
def test_random_cases_match_the_reference(vocab, dtype):
    check_random_cases(vocab, dtype, cases=RANDOM_CASES, seed=700 + vocab + (dtype == torch.float64))


# Task 6: bad input -----------------------------------------------------------------------------

def tensors(target, draft, tokens, dtype=torch.float32):
    return torch.tensor(target, dtype=dtype), torch.tensor(draft, dtype=dtype), torch.tensor(tokens)


GOOD_TARGET = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
GOOD_DRAFT = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]

BAD_INPUTS = {
    "target-with-too-few-rows": (tensors(GOOD_TARGET[:2], GOOD_DRAFT, [1, 2]), ("shape",), "target_probs with 2 rows for 2 draft tokens"),
    "draft-with-another-vocabulary": (tensors(GOOD_TARGET, [[0.5, 0.5], [0.5, 0.5]], [1, 0]), ("shape",), "draft_probs with 2 columns where target_probs has 3"),
    "tokens-as-a-matrix": (tensors(GOOD_TARGET, GOOD_DRAFT, [[1, 2]]), ("shape",), "draft_tokens of shape (1, 2)"),
    "token-past-the-vocabulary": (tensors(GOOD_TARGET, GOOD_DRAFT, [1, 3]), ("out of range",), "draft token 3 in a vocabulary of 3"),
    "negative-token": (tensors(GOOD_TARGET, GOOD_DRAFT, [-1, 2]), ("out of range",), "draft token -1"),
    "token-the-draft-could-not-propose": (tensors(GOOD_TARGET, [[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]], [2, 2]), ("zero probability",), "q[0, 2] = 0 for drafted token 2"),
    "negative-probability": (tensors([[0.6, 0.5, -0.1]] + GOOD_TARGET[1:], GOOD_DRAFT, [1, 2]), ("negative",), "p[0, 2] = -0.1"),
    "nan-probability": (tensors(GOOD_TARGET, [[0.5, 0.3, 0.2], [float("nan"), 0.4, 0.6]], [1, 2]), ("NaN",), "a NaN in draft_probs"),
    "row-summing-to-1.1": (tensors(GOOD_TARGET, [[0.5, 0.4, 0.2], [0.2, 0.2, 0.6]], [1, 2]), ("sum to 1",), "a draft row summing to 1.1"),
    "float64-row-off-by-2e-6": (tensors([[0.2, 0.5, 0.300002]] + GOOD_TARGET[1:], GOOD_DRAFT, [1, 2], torch.float64), ("sum to 1",), "a float64 target row summing to 1.000002"),
    "float-token-ids": ((torch.tensor(GOOD_TARGET), torch.tensor(GOOD_DRAFT), torch.tensor([1.0, 2.0])), ("integer",), "token ids of dtype float32"),
    "integer-probabilities": ((torch.tensor([[0, 1], [1, 0]]), torch.tensor([[0, 1]]), torch.tensor([1])), ("dtype",), "probabilities of dtype int64"),
    "two-dtypes": ((torch.tensor(GOOD_TARGET, dtype=torch.float64), torch.tensor(GOOD_DRAFT), torch.tensor([1, 2])), ("dtype",), "float64 target_probs with float32 draft_probs"),
    "a-list-not-a-tensor": ((GOOD_TARGET, torch.tensor(GOOD_DRAFT), torch.tensor([1, 2])), ("tensor",), "target_probs given as a Python list"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(6)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    (target, draft, tokens), mentions, problem = BAD_INPUTS[name]
    expect_value_error(speculative_decode_step(), draft, target, tokens, make_generator(0), mentions=mentions, problem=problem)


@pytest.mark.task(6)
def test_float32_rows_within_their_tolerance_are_accepted():
    target = torch.tensor([[0.2, 0.5, 0.30005]] + GOOD_TARGET[1:])  # off by 5e-5 < 1e-4 (float32)
    check_case(torch.tensor(GOOD_DRAFT), target, torch.tensor([1, 2]), 1, "a float32 row summing to 1 + 5e-5 (within 1e-4)")


# Task 7: any device ----------------------------------------------------------------------------

@pytest.mark.generated
@pytest.mark.task(7)
def test_random_cases_on_cuda_match_the_reference():
    # The worked example first, on the CPU: an untouched stub reads "not attempted", not "skipped".
    check_case(torch.tensor(SEED_DRAFT), torch.tensor(SEED_TARGET), torch.tensor([1]), 0, "the worked example")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    check_random_cases(17, torch.float32, cases=60, seed=77, device="cuda")


# Task 8: probabilities that require grad (a model's softmax, say) are accepted ----------------------

@pytest.mark.task(8)
def test_probabilities_that_require_grad_are_accepted():
    plain = check_case(torch.tensor(SEED_DRAFT), torch.tensor(SEED_TARGET), torch.tensor([1]), 0, "the worked example")
    draft, target = torch.tensor(SEED_DRAFT, requires_grad=True), torch.tensor(SEED_TARGET, requires_grad=True)
    tokens, num_accepted = call_learner(speculative_decode_step(), draft, target, torch.tensor([1]), make_generator(0, "cpu"),
                                        case="draft_probs and target_probs with requires_grad=True")
    if (tokens.tolist(), num_accepted) != plain or tokens.requires_grad:
        raise GradingFailure(
            "speculative_decode_step must treat probabilities that require grad like any others (work under "
            f"torch.no_grad()): it returned {tokens.tolist()}, {num_accepted} where the same call without grad gives {plain}."
        )
