"""Grading suite for exercise 10-speculative-generate: speculative_generate(target, draft, prompt_ids, ...).

Every case wraps both models in a RecordingModel, runs the learner's decoder with a seeded torch
generator, and compares with an independent reference (tests/reference/ex10_reference.py) that
follows the contract: the tokens, what each model was fed in every call, the statistics, and the
generator's state afterwards (how many numbers were drawn). Toy Markov chains make the truth
exact; the committed trained models make it real.
"""

from __future__ import annotations

import pytest
import torch

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.models.markov import random_markov_model
from speckata.models.pretrained import char_tokenizer, load_draft, load_target
from tests.reference import ex10_cases as cases
from tests.reference.ex10_cases import chains, check_result_shape, describe
from tests.reference.ex10_reference import reference_generate
from tests.reference.ex10_report import first_difference
from tests.reference.ex10_statistics import (
    STAT_ALPHA,
    STAT_GAMMA,
    STAT_LENGTH,
    STAT_RUNS,
    sequence_chi_square,
    stat_chains,
)

EXERCISE = "10-speculative-generate"


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def speculative_generate():
    return learner_function(EXERCISE, "speculative_generate")


def check_case(*args, **kwargs):
    return cases.check_case(speculative_generate(), *args, **kwargs)


def run_learner(*args):
    return cases.run_learner(speculative_generate(), *args)


# Task 1: the worked example ------------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example():
    target, draft = chains("example")
    result, rec_target, rec_draft = check_case("the worked example's order-1 chains", target, draft, [0], 6, 2, seed=2)
    assert result.tokens == [2, 0, 2, 0, 1, 0]
    assert rec_target.feeds == [(0, 2, 0), (2, 0, 0), (1,)]


# Task 2: one round: k draft passes, one target pass -------------------------------------------------

@pytest.mark.task(2)
def test_one_round_drafts_gamma_tokens_and_verifies_them_in_one_target_pass():
    target, draft = chains("same")
    result, rec_target, rec_draft = check_case("order-2 chains, the draft identical to the target (every draft kept)",
                                               target, draft, [1, 2, 3], 5, 4, seed=5)
    if rec_target.forward_calls != 1 or len(rec_target.feeds[0]) != 3 + 4:
        raise GradingFailure(f"One round with gamma = 4 must call the target once, with the 3 prompt tokens and the 4 drafts; "
                             f"your target's calls: {rec_target.feeds}")
    if rec_draft.forward_calls != 4:
        raise GradingFailure(f"One round with gamma = 4 must call the draft 4 times; your draft's calls: {rec_draft.feeds}")


@pytest.mark.task(2)
def test_a_round_that_keeps_every_draft_adds_a_bonus_token_sampled_from_p_k():
    """One round, every draft kept (the draft is the target): the last token is the bonus, from p_k."""
    for seed in range(8):
        check_case("order-2 chains, the draft identical to the target (every draft kept); one round",
                   *chains("same"), [1, 4], 3, 2, seed=seed)


@pytest.mark.parametrize("gamma", [1, 2, 3, 8])
@pytest.mark.task(2)
def test_target_passes_are_rounds_and_draft_passes_are_drafts(gamma):
    target, draft = chains("far")
    check_case("order-2 chains that disagree often", target, draft, [0, 1], 30, gamma, seed=100 + gamma)


# Task 3: a rejection rolls both caches back ---------------------------------------------------------

@pytest.mark.task(3)
def test_rejection_crops_both_caches_to_the_kept_sequence():
    target, draft = chains("far")
    result, rec_target, rec_draft = check_case("order-2 chains that disagree often", target, draft, [3], 12, 4, seed=7)
    assert min(result.accepted_per_pass[:-1]) < 4, "this case was chosen to reject at least once"


@pytest.mark.task(3)
def test_caches_are_rolled_back_never_recomputed():
    target, draft = chains("far")
    prompt, max_new_tokens, gamma = [0, 1, 2, 3, 0, 1], 80, 3
    case = describe("order-2 chains that disagree often", prompt, max_new_tokens, gamma, 9, 1.0)
    result, rec_target, rec_draft, _ = run_learner(target, draft, prompt, max_new_tokens, gamma, 9, 1.0, case)
    check_result_shape(result, max_new_tokens)
    trace = reference_generate(*chains("far"), prompt, max_new_tokens, gamma, torch.Generator().manual_seed(9))
    for name, model, feeds in (("target", rec_target, trace.target_feeds), ("draft", rec_draft, trace.draft_feeds)):
        resets = [c for c in model.calls[1:] if c[0] == "reset"]
        needed = sum(len(feed) for feed in feeds)
        if resets or model.tokens_fed > needed:
            raise GradingFailure(
                f"The {name} was fed {model.tokens_fed} tokens in {model.forward_calls} calls ({len(resets)} resets after the "
                f"start) for {max_new_tokens} new tokens; rolling back with crop needs {needed} in {len(feeds)} calls.\n"
                "After a rejection, crop the cache to len(sequence) - 1 and feed only what it lacks; "
                "never reset and re-feed the sequence.\n\n" + case)
    check_case("order-2 chains that disagree often", *chains("far"), prompt, max_new_tokens, gamma, seed=9)


# Task 4: after a bonus token the draft catches up --------------------------------------------------

@pytest.mark.task(4)
def test_after_a_bonus_the_draft_is_fed_the_last_draft_and_the_bonus_together():
    target, draft = chains("same")
    result, rec_target, rec_draft = check_case("order-2 chains, the draft identical to the target (every draft kept)",
                                               target, draft, [0], 12, 3, seed=3)
    round_starts = [feed for feed in rec_draft.feeds if len(feed) == 2]
    if len(round_starts) != 2:
        raise GradingFailure(f"Every round after the first should start by feeding the draft two tokens; "
                             f"your draft's calls: {rec_draft.feeds}")


# Task 5: the last rounds and the budget --------------------------------------------------------------

@pytest.mark.parametrize("max_new_tokens, expected_drafted", [(7, [4, 1]), (6, [4, 0]), (5, [4]), (1, [0])])
@pytest.mark.task(5)
def test_no_round_overshoots_max_new_tokens(max_new_tokens, expected_drafted):
    target, draft = chains("same")
    result, _, _ = check_case("order-2 chains, the draft identical to the target (every draft kept)",
                              target, draft, [2], max_new_tokens, 4, seed=1)
    assert result.drafted_per_pass == expected_drafted


@pytest.mark.task(5)
def test_zero_new_tokens_returns_nothing_and_calls_no_model():
    target, draft = chains("far")
    result, rec_target, rec_draft = check_case("order-2 chains", target, draft, [1], 0, 3, seed=0)
    if rec_target.forward_calls or rec_draft.forward_calls:
        raise GradingFailure("max_new_tokens = 0 must not call forward_new on either model.")


# Task 6: temperature 0 is the target's greedy decoding --------------------------------------------

@pytest.mark.parametrize("models", ["far", "close"])
@pytest.mark.task(6)
def test_temperature_zero_equals_the_targets_greedy_decoding_on_chains(models):
    target, draft = chains(models)
    result, _, _ = check_case(f"order-2 chains ({models})", target, draft, [1, 0], 40, 3, seed=4, temperature=0.0)
    history, greedy = [1, 0], []
    for _ in range(40):
        token = int(target.next_distribution(history).argmax())
        greedy.append(token)
        history.append(token)
    if result.tokens != greedy:
        index = first_difference(greedy, result.tokens)
        raise GradingFailure(f"At temperature 0 the output must be the target's greedy decoding; it first differs at new token "
                             f"{index}: yours {result.tokens[index]}, the target's argmax {greedy[index]}.")


@pytest.fixture(scope="module")
def trained_models():
    return {"float32": (load_target(), load_draft()), "float64": (load_target(torch.float64), load_draft(torch.float64))}


PROMPT = char_tokenizer().encode("The default ")
TRAINED_TOKENS = 28  # new tokens of each exact replay on the trained models
GREEDY_PROMPT = "The class"
# The float64 target's own greedy decoding after GREEDY_PROMPT (autoregressive_generate at temperature 0,
# 36 new tokens: " and the comple the callle the compl"), written down so that no check decodes it again;
# tests/maintainer/test_committed_expectations.py decodes it and compares.
GREEDY = [1, 66, 79, 69, 1, 85, 73, 70, 1, 68, 80, 78, 81, 77, 70, 1, 85, 73, 70, 1, 68, 66, 77, 77, 77, 70, 1, 85, 73, 70,
          1, 68, 80, 78, 81, 77]


@pytest.mark.task(6)
def test_temperature_zero_equals_greedy_decoding_on_the_trained_models(trained_models):
    """float64 copies of the committed models, so that no rounding can separate two logits."""
    target, draft = trained_models["float64"]
    prompt, greedy = char_tokenizer().encode(GREEDY_PROMPT), GREEDY
    result, _, _ = check_case("the committed target and draft, float64", target, draft, prompt, len(greedy), 4, seed=0,
                              temperature=0.0)
    if result.tokens != greedy:
        index = first_difference(greedy, result.tokens)
        raise GradingFailure(f"At temperature 0 the output must equal autoregressive_generate(target, ..., temperature=0); "
                             f"it first differs at new token {index}.")


# Task 7: exact replay against the reference --------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("models", ["far", "close", "example"])
@pytest.mark.task(7)
def test_random_cases_match_the_reference(models):
    gen = torch.Generator().manual_seed(case_seed(len(models)))
    for index in range(25):
        gamma = int(torch.randint(1, 6, (), generator=gen))
        max_new_tokens = int(torch.randint(1, 25, (), generator=gen))
        prompt = torch.randint(0, 3, (int(torch.randint(1, 4, (), generator=gen)),), generator=gen).tolist()
        temperature = [1.0, 0.5, 2.0, 0.0][index % 4]
        try:
            check_case(f"toy chains ({models})", *chains(models), prompt, max_new_tokens, gamma, seed=case_seed(1000 + index),
                       temperature=temperature)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 25; the cases before it passed)") from None


@pytest.mark.generated
@pytest.mark.parametrize("gamma, temperature", [(4, 1.0), (2, 0.7), (6, 1.3)])
@pytest.mark.task(7)
def test_trained_models_match_the_reference(trained_models, gamma, temperature):
    target, draft = trained_models["float32"]
    check_case("the committed trained target and draft", target, draft, PROMPT, TRAINED_TOKENS, gamma, seed=case_seed(gamma),
               temperature=temperature)


# Task 8: the output is distributed as the target's ------------------------------------------------

@pytest.mark.statistical
@pytest.mark.task(8)
def test_generated_sequences_are_distributed_as_the_target():
    """Chi-square goodness of fit of whole generated sequences against the target chain.

    Statistic: Pearson's chi-square of the counts of the 27 sequences of 3 new tokens against
    their exact probabilities under the order-2 target chain, with the sequences expected fewer
    than 5 times pooled into one bin (here 18 sequences and the pooled bin: 18 degrees of
    freedom). Sample: 500 runs from one generator seeded with 20261130 (gamma = 2, prompt [0]).
    Threshold: fail when the p-value is below 1e-3. The reference scores p = 0.82;
    tests/maintainer/test_margins_chi_square.py checks that, and that a decoder drawing a
    rejection's replacement from p instead of the residual scores far below the threshold
    (about 1e-17 here).
    """
    statistic, pvalue, counts, df = sequence_chi_square(speculative_generate())
    if pvalue < STAT_ALPHA:
        target, _ = stat_chains()
        possible = set(target.all_continuations(STAT_LENGTH))
        strays = [list(sequence) for sequence in counts if sequence not in possible]
        if strays:
            raise GradingFailure(
                f"speculative_generate(target, draft, [0], max_new_tokens={STAT_LENGTH}, gamma={STAT_GAMMA}, generator) "
                f"returned tokens {strays[0]} in {counts[tuple(strays[0])]} of {STAT_RUNS} runs; every run must return "
                f"exactly {STAT_LENGTH} new tokens from the vocabulary 0..{target.vocab_size - 1}.")
        worst = sorted(target.all_continuations(STAT_LENGTH),
                       key=lambda s: -abs(counts[s] - STAT_RUNS * target.sequence_probability([0], s)))[:5]
        rows = "\n".join(f"    {list(s)}  observed {counts[s] / STAT_RUNS:.4f}  target {target.sequence_probability([0], s):.4f}"
                         for s in worst)
        raise GradingFailure(
            "The sequences speculative_generate produces are not distributed as the target's.\n"
            f"  runs: {STAT_RUNS}, 3 new tokens each, gamma = {STAT_GAMMA}, toy order-2 chains over 3 tokens\n"
            f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            f"  the sequences furthest from the target:\n{rows}\n"
            "Common causes: a replacement drawn from p instead of max(p - q, 0); a cache not rolled back after a rejection.")


# Task 9: bad input ----------------------------------------------------------------------------------

def bad_inputs():
    target, draft = chains("far")
    wider = random_markov_model(5, 1, seed=0)
    return {
        "empty-prompt": ((target, draft, [], 5, 2), ("prompt",), "an empty prompt"),
        "prompt-token-out-of-range": ((target, draft, [0, 4], 5, 2), ("prompt",), "prompt token 4 in a vocabulary of 4"),
        "gamma-zero": ((target, draft, [0], 5, 0), ("gamma",), "gamma = 0"),
        "negative-max-new-tokens": ((target, draft, [0], -1, 2), ("max_new_tokens",), "max_new_tokens = -1"),
        "vocabularies-differ": ((target, wider, [0], 5, 2), ("vocabulary",), "a draft over 5 tokens and a target over 4"),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(9)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    args, mentions, problem = bad_inputs()[name]
    expect_value_error(speculative_generate(), *args, torch.Generator().manual_seed(0), mentions=mentions, problem=problem)


@pytest.mark.parametrize("temperature", [-0.5, float("nan")])
@pytest.mark.task(9)
def test_bad_temperature_raises_a_value_error(temperature):
    target, draft = chains("far")
    expect_value_error(speculative_generate(), target, draft, [0], 5, 2, torch.Generator().manual_seed(0),
                       temperature=temperature, mentions=("temperature",), problem=f"temperature = {temperature}")


@pytest.mark.task(9)
def test_does_not_modify_the_prompt():
    target, draft = chains("far")
    prompt = [0, 1, 2]
    call_learner(speculative_generate(), target, draft, prompt, 10, 3, torch.Generator().manual_seed(0), case="prompt [0, 1, 2]")
    if prompt != [0, 1, 2]:
        raise GradingFailure(f"speculative_generate changed the caller's prompt list to {prompt}; work on a copy.")
