"""Grading suite for exercise 28-eagle-head-cache: eagle_head_step, eagle_cached_draft, eagle_cached_generate.

The cached head must give exercise 22's rows, drafts and q (the independent reference recomputes
the whole sequence: tests/reference/ex28_reference.py), within float tolerance, and do only the
contract's work: every call on the head is recorded (speckata.heads.eagle.RecordingEagleHead) and
compared with the reference's bookkeeping, so a head that recomputes the sequence, is never
cropped, keeps rows of its own predicted features or computes a row no draft reads fails at that
call. The decoder is exercise 22's token for token, draw for draw and call for call on the target;
greedy it is the target's greedy decoding, sampled it is distributed as the target (chi-square).
"""

from __future__ import annotations

from functools import lru_cache

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.heads.eagle import EagleHead, load_eagle_head
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import char_tokenizer, load_target
from tests import test_22_eagle_head as ex22
from tests.reference.ex22_cases import random_head, tiny_gpt
from tests.reference.ex28_cases import check_cached_draft, check_cached_run, check_step
from tests.reference.ex28_reference import reference_rows

EXERCISE = "28-eagle-head-cache"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]


def fn(name):
    return learner_function(EXERCISE, name)


@lru_cache(maxsize=1)
def trained():
    return load_target(), load_eagle_head()


def prompt_features(target, text):
    """The target's features of a prompt but its last token, and the tokens one step ahead."""
    ids = torch.tensor(char_tokenizer().encode(text))
    with torch.no_grad():
        return target.hidden_states(ids[None, :-1])[0], ids[1:]


def warm(head, target, features, tokens, rows):
    """Fill the head's cache with its first ``rows`` rows of these features, as a previous round would."""
    head.reset()
    if rows:
        with torch.no_grad():
            head.forward_new(head.fc(torch.cat([target.token_embedding(tokens[:rows]), features[:rows]], dim=-1)))


# Task 1: one step of the head against its cache --------------------------------------------------------------

@pytest.mark.task(1)
def test_steps_give_the_rows_of_the_whole_sequence():
    target, head = trained()
    features, tokens = prompt_features(target, PROMPTS[0])
    expected = reference_rows(head, target, features, tokens, 0)
    check_step(fn("eagle_head_step"), head, target, features, tokens, [12, 1, 1, 6], expected,
               "the committed head, a prompt fed in four steps")


@pytest.mark.generated
@pytest.mark.task(1)
def test_steps_on_random_heads():
    for index in range(4):
        target, head = tiny_gpt(case_seed(2800 + index)), random_head(16, case_seed(2810 + index))
        generator = torch.Generator().manual_seed(case_seed(2820 + index))
        ids = torch.randint(0, 7, (10,), generator=generator)
        with torch.no_grad():
            features = target.hidden_states(ids[None, :-1])[0]
        chunks = [[9], [1] * 9, [4, 1, 4], [2, 3, 4]][index]
        check_step(fn("eagle_head_step"), head, target, features, ids[1:], chunks,
                   reference_rows(head, target, features, ids[1:], 0), f"random tiny GPT {index}, steps {chunks}")


# Task 2: drafting gamma tokens, one row per step --------------------------------------------------------------

@pytest.mark.parametrize("cached", [0, 15])
@pytest.mark.task(2)
def test_drafts_on_the_committed_head(cached):
    target, head = trained()
    features, tokens = prompt_features(target, PROMPTS[0])
    warm(head, target, features, tokens, cached)
    check_cached_draft(fn("eagle_cached_draft"), target, head, features, tokens, 4, 7, 1.0, cached,
                       "the committed target and head")


@pytest.mark.generated
@pytest.mark.task(2)
def test_drafts_match_exercise_22s_on_random_heads():
    for index in range(6):
        target, head = tiny_gpt(case_seed(2830 + index), sharpness=3.0), random_head(16, case_seed(2840 + index))
        generator = torch.Generator().manual_seed(case_seed(2850 + index))
        n = 1 + index % 4
        with torch.no_grad():
            ids = torch.randint(0, 7, (n + 1,), generator=generator)
            features = target.hidden_states(ids[None, :-1])[0]
        cached = index % n
        warm(head, target, features, ids[1:], cached)
        check_cached_draft(fn("eagle_cached_draft"), target, head, features, ids[1:], 1 + index % 4,
                           case_seed(2860 + index), (1.0, 0.7, 0.0)[index % 3], cached, f"random tiny GPT {index}")


# Task 3: the decoder, with the head's cache kept across rounds ----------------------------------------------

@pytest.mark.task(3)
def test_worked_example_decoding():
    target, head = trained()
    check_cached_run(fn("eagle_cached_generate"), target, head, char_tokenizer().encode(PROMPTS[0]), 24, 3, 0, 0.0,
                     "the worked example (greedy)")


@pytest.mark.parametrize("text", PROMPTS)
@pytest.mark.task(3)
def test_greedy_output_is_the_targets_greedy_decoding(text):
    target, head = trained()
    prompt = char_tokenizer().encode(text)
    got, _ = check_cached_run(fn("eagle_cached_generate"), target, head, prompt, 40, 4, 1, 0.0,
                              f"the committed target and head, {text!r}, greedy")
    assert got.tokens == autoregressive_generate(target, prompt, 40, torch.Generator(), temperature=0)


@pytest.mark.task(3)
def test_the_cache_saves_the_heads_work():
    """Exercise 22's head computes, per draft step, a row for every token so far; the cache one."""
    target, head = trained()
    prompt = char_tokenizer().encode(PROMPTS[1])
    got, recorder = check_cached_run(fn("eagle_cached_generate"), target, head, prompt, 40, 4, 3, 0.0,
                                     "the committed target and head, greedy")
    uncached = sum(len(prompt) + sum(got.accepted_per_pass[:r]) + r + j
                   for r, k in enumerate(got.drafted_per_pass) for j in range(k))
    if not recorder.rows_computed < uncached / 4:
        raise GradingFailure(f"The head computed {recorder.rows_computed} rows; without a cache it computes "
                             f"{uncached}, and the contract's cache under a quarter of that.")


@pytest.mark.parametrize("max_new_tokens", [0, 1, 2, 5])
@pytest.mark.task(3)
def test_short_outputs(max_new_tokens):
    target, head = trained()
    check_cached_run(fn("eagle_cached_generate"), target, head, char_tokenizer().encode(PROMPTS[2]), max_new_tokens,
                     3, 5, 1.0, f"{max_new_tokens} new tokens (the first one comes from the prompt's pass)")


@pytest.mark.parametrize("gamma, temperature", [(3, 1.0), (5, 0.7)])
@pytest.mark.generated
@pytest.mark.task(3)
def test_sampled_on_the_committed_models(gamma, temperature):
    target, head = trained()
    check_cached_run(fn("eagle_cached_generate"), target, head, char_tokenizer().encode(PROMPTS[1]), 30, gamma,
                     case_seed(2870 + gamma), temperature, "the committed target and head, sampled")


@pytest.mark.generated
@pytest.mark.task(3)
def test_random_tiny_models_match_the_reference():
    for index in range(8):
        target = tiny_gpt(case_seed(2880 + index), vocab=3 + index % 3, sharpness=3.0)
        head = random_head(16, case_seed(2890 + index))
        generator = torch.Generator().manual_seed(case_seed(2900 + index))
        prompt = torch.randint(0, target.vocab_size, (1 + index % 3,), generator=generator).tolist()
        try:
            check_cached_run(fn("eagle_cached_generate"), target, head, prompt, 6 + index, 1 + index % 4,
                             case_seed(2910 + index), (1.0, 0.0, 1.5, 0.6)[index % 4], f"random tiny GPT {index}")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 8; the cases before it passed)") from None


STAT_SEED = 20261228


@pytest.mark.statistical
@pytest.mark.task(3)
def test_sampled_output_is_distributed_as_the_target():
    """Chi-square goodness of fit of whole generated sequences against the target's own law.

    Exercise 22's test, run on eagle_cached_generate with another seed. Statistic: Pearson's
    chi-square of the counts of the 27 sequences of 3 new tokens (a tiny GPT over 3 tokens,
    sharpened, and a random head) against their exact probabilities under the target, those
    expected fewer than 5 times pooled into one bin. Sample: 600 runs from one generator seeded with
    20261228 (gamma = 2, prompt [0]). Threshold: fail when the p-value is below 1e-3.
    tests/maintainer/test_margins_chi_square.py checks the reference's margin, and that a decoder
    verifying against the wrong q, or taking the first token greedily, scores far below.
    """
    statistic, pvalue, counts, df, law = ex22.sequence_chi_square(fn("eagle_cached_generate"), seed=STAT_SEED)
    if pvalue < ex22.STAT_ALPHA:
        worst = sorted(law, key=lambda s: -abs(counts[s] - ex22.STAT_RUNS * law[s]))[:5]
        rows = "\n".join(f"    {list(s)}  observed {counts[s] / ex22.STAT_RUNS:.4f}  target {law[s]:.4f}" for s in worst)
        raise GradingFailure(
            "The sequences eagle_cached_generate samples are not distributed as the target's.\n"
            f"  runs: {ex22.STAT_RUNS}, {ex22.STAT_LENGTH} new tokens each, gamma = {ex22.STAT_GAMMA}, a tiny GPT over 3 "
            f"tokens\n  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < "
            f"{ex22.STAT_ALPHA}\n  the sequences furthest from the target:\n{rows}\n"
            "Common causes: q in the accept test is not the distribution the draft was sampled from; the first "
            "token not sampled from the prompt pass's last row.")


# Task 4: bad input ------------------------------------------------------------------------------------------

def full_cache_head(target, rows):
    head = random_head(16, 0)
    warm(head, target, torch.zeros(rows, 16), torch.ones(rows, dtype=torch.int64), rows)
    return head


def bad_inputs():
    tiny, head, g = tiny_gpt(0), random_head(16, 0), torch.Generator()
    feats, toks = torch.zeros(3, 16), torch.tensor([1, 2, 3])
    return {
        "cache-as-long-as-the-features": ("eagle_cached_draft", (tiny, full_cache_head(tiny, 3), feats, toks, 2, g),
                                          ("cache",)),
        "cache-longer-than-the-features": ("eagle_cached_draft", (tiny, full_cache_head(tiny, 5), feats, toks, 2, g),
                                           ("cache",)),
        "draft-gamma-zero": ("eagle_cached_draft", (tiny, head, feats, toks, 0, g), ("gamma",)),
        "draft-features-batched": ("eagle_cached_draft", (tiny, head, torch.zeros(2, 3, 16), torch.ones(2, 3,
                                   dtype=torch.int64), 2, g), ("features",)),
        "draft-features-wrong-width": ("eagle_cached_draft", (tiny, head, torch.zeros(3, 8), toks, 2, g), ("width",)),
        "step-tokens-wrong-shape": ("eagle_head_step", (head, tiny, feats, torch.tensor([1, 2])), ("tokens",)),
        "step-no-rows": ("eagle_head_step", (head, tiny, torch.zeros(0, 16), torch.zeros(0, dtype=torch.int64)),
                         ("features",)),
        "gamma-zero": ("eagle_cached_generate", (tiny, head, [0], 4, 0, g), ("gamma",)),
        "target-without-hidden": ("eagle_cached_generate", (MarkovModel([[0.5, 0.5], [0.5, 0.5]]), head, [0], 4, 2, g),
                                  ("forward_new_hidden",)),
        "head-of-another-width": ("eagle_cached_generate", (tiny, EagleHead(8, inner=8, mlp_width=8), [0], 4, 2, g),
                                  ("width",)),
        "empty-prompt": ("eagle_cached_generate", (tiny, head, [], 4, 2, g), ("prompt",)),
        "negative-max-new-tokens": ("eagle_cached_generate", (tiny, head, [0], -1, 2, g), ("max_new_tokens",)),
        "negative-temperature": ("eagle_cached_generate", (tiny, head, [0], 4, 2, g, -1.0), ("temperature",)),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(4)
def test_bad_input_raises_value_error(name):
    function, args, phrases = bad_inputs()[name]
    expect_value_error(fn(function), *args, mentions=phrases, problem=name)
