"""Grading suite for exercise 25-ragged-batch: ragged_inputs and batched_speculative_generate.

ragged_inputs is compared with the reference's feed (tests/reference/ex25_feeds.py) exactly.
Every decoder case wraps both models in a RecordingModel, runs the learner's decoder with a
seeded torch generator, and compares with an independent reference
(tests/reference/ex25_reference.py): every row's tokens, every call each model received (ids,
row lengths, mask, positions, crops), the statistics and the generator's state afterwards.
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.models.markov import random_markov_model
from speckata.models.pretrained import char_tokenizer, load_draft, load_target
from tests.reference import ex25_cases as cases
from tests.reference.ex25_cases import chains
from tests.reference.ex25_feeds import ragged_feed
from tests.shared.statistics import pooled_chi_square

EXERCISE = "25-ragged-batch"

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def batched_speculative_generate():
    return learner_function(EXERCISE, "batched_speculative_generate")


def check_case(*args, **kwargs):
    return cases.check_case(batched_speculative_generate(), *args, **kwargs)


# Task 1: the padding, the mask, the positions ---------------------------------------------------------

FEEDS = {
    "the worked example's rows": ([3, 1], [[2], [0, 1, 2]]),
    "a row with nothing new": ([2, 4, 0], [[1, 1], [], [0]]),
    "rows of equal length": ([0, 0], [[1, 2, 3], [3, 2, 1]]),
    "one row": ([5], [[4]]),
    "long and short rows": ([7, 1, 3], [[0], [1, 2, 3, 4], [2, 2]]),
}


@pytest.mark.parametrize("name", list(FEEDS))
@pytest.mark.task(1)
def test_ragged_inputs_pads_masks_and_positions_each_row_by_its_own_length(name):
    lengths, new_tokens = FEEDS[name]
    call = f"ragged_inputs(row_lengths={lengths}, new_tokens={new_tokens})  ({name})"
    got = call_learner(learner_function(EXERCISE, "ragged_inputs"), list(lengths), [list(t) for t in new_tokens], case=call)
    expected = ragged_feed(lengths, new_tokens)
    if not isinstance(got, tuple) or len(got) != 3 or not all(isinstance(t, torch.Tensor) for t in got):
        raise GradingFailure(f"{call} must return a tuple of three tensors (ids, attention_mask, position_ids); got {got!r}"[:600])
    for what, mine, theirs, dtype in zip(("ids", "attention_mask", "position_ids"), got, expected,
                                         (torch.int64, torch.bool, torch.int64)):
        if mine.dtype != dtype or tuple(mine.shape) != tuple(theirs.shape):
            raise GradingFailure(f"{call}: {what} must be {dtype} of shape {tuple(theirs.shape)}; "
                                 f"got {mine.dtype} of shape {tuple(mine.shape)}")
        if not torch.equal(mine, theirs):
            where = (mine != theirs).nonzero()[0].tolist()
            raise GradingFailure(f"{call}: {what} differs first at index {where} (row {where[0]}, token {where[1]}).\n"
                                 f"  yours:    {mine.int().tolist()}\n  expected: {theirs.int().tolist()}\n"
                                 "Real token i of row b sits in slot and position L_b + i and sees slots 0..L_b + i; "
                                 "padding (PAD ids) sees nothing and sits at position 0.")


# Task 2: the worked example ---------------------------------------------------------------------------

@pytest.mark.task(2)
def test_worked_example():
    result, rec_target, _ = check_case("the worked example's order-1 chains", *chains("example"), [[0], [1, 2]], 5, 2, seed=1)
    assert result.tokens == [[1, 1, 2, 1, 2], [0, 1, 1, 1, 2]]


# Task 3: one round: k batched draft passes, one batched target pass, a crop per row ---------------------

@pytest.mark.task(3)
def test_one_round_drafts_every_row_and_verifies_the_batch_in_one_target_pass():
    result, rec_target, rec_draft = check_case("order-2 chains, the draft identical to the target (every draft kept)",
                                               *chains("same"), [[1, 2, 3], [0], [4, 4]], 5, 4, seed=5)
    if rec_target.rows_passes != 1 or rec_draft.rows_passes != 4:
        raise GradingFailure(f"One round with gamma = 4 is 4 batched draft passes and 1 batched target pass; yours made "
                             f"{rec_draft.rows_passes} and {rec_target.rows_passes}.")


@pytest.mark.parametrize("gamma", [1, 2, 3, 6])
@pytest.mark.task(3)
def test_rows_that_accept_different_counts_advance_and_crop_on_their_own(gamma):
    check_case("order-2 chains that disagree often", *chains("far"), [[0, 1], [3], [2, 2, 1, 0], [1]], 20, gamma,
               seed=100 + gamma)


# Task 4: rows that finish ---------------------------------------------------------------------------------

@pytest.mark.parametrize("max_new_tokens", [0, 1, 2, 7])
@pytest.mark.task(4)
def test_rows_leave_the_batch_when_they_have_max_new_tokens(max_new_tokens):
    check_case("order-2 chains that disagree often", *chains("far"), [[0], [1, 2, 3]], max_new_tokens, 3, seed=7)


# Task 5: temperature 0 is every row's greedy decoding, alone -----------------------------------------------

@pytest.mark.parametrize("models", ["far", "close"])
@pytest.mark.task(5)
def test_temperature_zero_rows_equal_each_prompts_greedy_decoding_on_chains(models):
    prompts = [[1, 0], [3], [2, 2, 2, 1]]
    target, draft = chains(models)
    result, _, _ = check_case(f"order-2 chains ({models})", target, draft, prompts, 25, 3, seed=4, temperature=0.0)
    for b, prompt in enumerate(prompts):
        history, greedy = list(prompt), []
        for _ in range(25):
            greedy.append(int(target.next_distribution(history).argmax()))
            history.append(greedy[-1])
        if result.tokens[b] != greedy:
            raise GradingFailure(f"At temperature 0 row {b} must be the target's greedy decoding of its prompt alone; "
                                 f"yours {result.tokens[b]}, greedy {greedy}.")


@pytest.fixture(scope="module")
def trained_models():
    return {"float32": (load_target(), load_draft()), "float64": (load_target(torch.float64), load_draft(torch.float64))}


GREEDY_PROMPTS = ["The class", "def f", "import os\nprint(os."]
GREEDY_TOKENS = 24
# Greedy equality across code paths (padded batch, single sequence) holds only where the target's
# two largest logits are far apart compared with float64 rounding (~1e-12): a tie would be a
# near-tie of the model, not the learner's error, so the test asserts the gap first.
MIN_TOP2_GAP = 1e-6


@pytest.mark.task(5)
def test_temperature_zero_rows_equal_greedy_decoding_on_the_trained_models(trained_models):
    target, draft = trained_models["float64"]
    prompts = [char_tokenizer().encode(text) for text in GREEDY_PROMPTS]
    greedy = [autoregressive_generate(target, prompt, GREEDY_TOKENS, torch.Generator(), temperature=0) for prompt in prompts]
    for prompt, path in zip(prompts, greedy):
        target.reset()
        top2 = target.forward_new(prompt + path[:-1])[-GREEDY_TOKENS:].topk(2, dim=-1).values
        gap = float((top2[:, 0] - top2[:, 1]).min())
        assert gap > MIN_TOP2_GAP, f"near-tie in the target's greedy path of {prompt}: top-2 gap {gap:.2e} (pick another prompt)"
    result, _, _ = check_case("the committed target and draft, float64", target, draft, prompts, GREEDY_TOKENS, 4, seed=0,
                              temperature=0.0)
    for b, path in enumerate(greedy):
        if result.tokens[b] != path:
            raise GradingFailure(f"At temperature 0 row {b} must equal autoregressive_generate(target, prompts[{b}], ..., "
                                 f"temperature=0); yours {result.tokens[b]}, greedy {path}.")


# Task 6: exact replay against the reference --------------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("models", ["far", "close", "example"])
@pytest.mark.task(6)
def test_random_cases_match_the_reference(models):
    gen = torch.Generator().manual_seed(case_seed(len(models)))
    for index in range(12):
        batch = int(torch.randint(1, 5, (), generator=gen))
        prompts = [torch.randint(0, 3, (int(torch.randint(1, 6, (), generator=gen)),), generator=gen).tolist()
                   for _ in range(batch)]
        gamma = int(torch.randint(1, 5, (), generator=gen))
        max_new_tokens = int(torch.randint(1, 16, (), generator=gen))
        temperature = [1.0, 0.5, 2.0, 0.0][index % 4]
        try:
            check_case(f"toy chains ({models})", *chains(models), prompts, max_new_tokens, gamma, seed=case_seed(500 + index),
                       temperature=temperature)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 12; the cases before it passed)") from None


@pytest.mark.generated
@pytest.mark.parametrize("gamma, temperature", [(3, 1.0), (5, 0.7)])
@pytest.mark.task(6)
def test_trained_models_match_the_reference(trained_models, gamma, temperature):
    target, draft = trained_models["float32"]
    prompts = [char_tokenizer().encode(text) for text in ("The default ", "x", "for i in range(")]
    check_case("the committed trained target and draft", target, draft, prompts, 16, gamma, seed=case_seed(gamma),
               temperature=temperature)


# Task 7: every row is distributed as the target's own sampling of its prompt ------------------------------

STAT_RUNS = 1000
STAT_SEED = 20261202
STAT_PROMPTS = [[0], [1, 2], [2, 0, 1]]
STAT_LENGTH = 3  # new tokens per row: 27 possible sequences over 3 tokens
STAT_GAMMA = 2
STAT_ALPHA = 1e-3  # for the smallest of the three rows' p-values, so 1e-3 / 3 for each


def stat_chains():
    """Order-1 chains over 3 tokens, the draft much peakier than the target (a biased shortcut shows)."""
    return random_markov_model(3, 1, seed=3, sharpness=1.0), random_markov_model(3, 1, seed=4, sharpness=3.0)


def row_chi_squares(generate, runs: int = STAT_RUNS, seed: int = STAT_SEED) -> list[tuple[float, float, Counter, int]]:
    """For every row: the statistic, its p-value, the counts of each sequence and the degrees of freedom."""
    target, draft = stat_chains()
    generator = torch.Generator().manual_seed(seed)
    counts = [Counter() for _ in STAT_PROMPTS]
    for _ in range(runs):
        result = call_learner(generate, target, draft, [list(p) for p in STAT_PROMPTS], STAT_LENGTH, STAT_GAMMA, generator,
                              case="(statistical test)")
        for b, row in enumerate(result.tokens):
            counts[b][tuple(row)] += 1
    tests = []
    for prompt, row_counts in zip(STAT_PROMPTS, counts):
        law = {s: target.sequence_probability(prompt, s) for s in target.all_continuations(STAT_LENGTH)}
        statistic, df, pvalue = pooled_chi_square(row_counts, law, runs)
        tests.append((statistic, pvalue, row_counts, df))
    return tests


def smallest_pvalue(generate) -> float:
    return min(pvalue for _, pvalue, _, _ in row_chi_squares(generate))


@pytest.mark.statistical
@pytest.mark.task(7)
def test_every_row_is_distributed_as_the_target():
    """Chi-square goodness of fit of every row's whole sequence against the target chain, row by row.

    Statistic: for each of the 3 rows (prompts [0], [1, 2], [2, 0, 1]: ragged from the first
    pass), Pearson's chi-square of the counts of the 27 sequences of 3 new tokens against their
    exact probabilities under the order-1 target chain given that row's prompt, sequences expected
    fewer than 5 times pooled into one bin. Sample: 1000 batched runs from one generator seeded
    with 20261202 (gamma = 2). Threshold: fail when the smallest of the 3 p-values is below 1e-3.
    The reference's smallest is 0.64; tests/maintainer/test_margins_chi_square.py checks that,
    and that a decoder advancing every row by the batch's minimum with the resampling shortcut
    scores far below (6e-12 here).
    """
    tests = row_chi_squares(batched_speculative_generate())
    target, _ = stat_chains()
    for b, (statistic, pvalue, counts, df) in enumerate(tests):
        if pvalue < STAT_ALPHA:
            worst = sorted(target.all_continuations(STAT_LENGTH),
                           key=lambda s: -abs(counts[s] - STAT_RUNS * target.sequence_probability(STAT_PROMPTS[b], s)))[:5]
            rows = "\n".join(f"    {list(s)}  observed {counts[s] / STAT_RUNS:.4f}  target "
                             f"{target.sequence_probability(STAT_PROMPTS[b], s):.4f}" for s in worst)
            raise GradingFailure(
                f"Row {b}'s sequences (prompt {STAT_PROMPTS[b]}) are not distributed as the target's own sampling.\n"
                f"  runs: {STAT_RUNS}, {STAT_LENGTH} new tokens per row, gamma = {STAT_GAMMA}, prompts {STAT_PROMPTS}\n"
                f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
                f"  the sequences furthest from the target:\n{rows}\n"
                "Common causes: every row advanced by the batch's smallest accepted count; a row's verdict read "
                "from another row; a replacement drawn from p instead of the residual.")


# Task 8: bad input -----------------------------------------------------------------------------------------

def bad_inputs():
    target, draft = chains("far")
    short = random_markov_model(4, 2, seed=11, sharpness=2.0)
    short.context = 6
    return {
        "vocabularies-differ": ((target, random_markov_model(5, 1, seed=0), [[0]], 5, 2), ("vocabulary",),
                                "a draft over 5 tokens and a target over 4"),
        "batch-of-zero": ((target, draft, [], 5, 2), ("batch",), "prompts = [] (a batch of 0 rows)"),
        "empty-prompt": ((target, draft, [[0], []], 5, 2), ("prompts[1]",), "an empty prompt in row 1"),
        "token-out-of-range": ((target, draft, [[0, 4]], 5, 2), ("prompts[0]", "out of range"), "token 4 of 4"),
        "prompt-past-context": ((short, draft, [[0], [0, 1, 2, 3, 0, 1, 2]], 2, 2), ("context",),
                                "a 7-token prompt for a target whose context is 6"),
        "gamma-zero": ((target, draft, [[0]], 5, 0), ("gamma",), "gamma = 0"),
        "negative-max-new-tokens": ((target, draft, [[0]], -1, 2), ("max_new_tokens",), "max_new_tokens = -1"),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(8)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    args, mentions, problem = bad_inputs()[name]
    expect_value_error(batched_speculative_generate(), *args, torch.Generator().manual_seed(0), mentions=mentions,
                       problem=problem)


@pytest.mark.parametrize("temperature", [-0.5, float("nan")])
@pytest.mark.task(8)
def test_bad_temperature_raises_a_value_error(temperature):
    expect_value_error(batched_speculative_generate(), *chains("far"), [[0]], 5, 2, torch.Generator().manual_seed(0),
                       temperature=temperature, mentions=("temperature",), problem=f"temperature = {temperature}")


@pytest.mark.task(8)
def test_does_not_modify_the_prompts():
    prompts = [[0, 1, 2], [3]]
    call_learner(batched_speculative_generate(), *chains("far"), prompts, 6, 3, torch.Generator().manual_seed(0),
                 case="prompts [[0, 1, 2], [3]]")
    if prompts != [[0, 1, 2], [3]]:
        raise GradingFailure(f"batched_speculative_generate changed the caller's prompts to {prompts}; work on copies.")
