"""Grading suite for exercise 12-cross-tokenizer: verify_proposal, target_proposal, cross_tokenizer_generate.

The decoder is replayed against an independent reference (tests/reference/ex12_reference.py) on
toy tokenizers and Markov chains, where the target's distribution is known exactly, and on the
committed models (a character-level target, a word-piece draft): tokens, every call each model
receives, statistics and the generator's state. Two chi-square tests show that the output is
distributed as the target's, whatever the draft proposes.
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.models.markov import MarkovModel, random_markov_model
from speckata.models.pretrained import char_tokenizer, load_target, load_word_draft, word_tokenizer
from speckata.models.tokenizers import CharTokenizer, WordTokenizer
from tests.reference import ex12_cases as cases
from tests.reference.ex12_reference import reference_verify
from tests.reference.ex12_statistics import STAT_ALPHA, STAT_P0, STAT_RUNS, first_token_chi_square
from tests.shared.statistics import chi_square_sf

EXERCISE = "12-cross-tokenizer"


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def learner(name):
    return learner_function(EXERCISE, name)


# The toy world: the target reads "a", "b", " "; the draft's pieces include "c", which the target lacks.
TOY_CHARS = CharTokenizer("ab ")
TOY_WORDS = WordTokenizer([" ab", "ab", " a", "ba", " b", "bb"], alphabet="abc ")


def toy_models(seed: int = 2) -> tuple[MarkovModel, MarkovModel]:
    """(target over 3 characters, order 2; draft over the 12 word-piece ids, order 1), fresh."""
    base = random_markov_model(3, 2, seed=seed, sharpness=1.5).transitions
    target = MarkovModel(0.7 * base + 0.3 * torch.tensor([0.35, 0.35, 0.3], dtype=torch.float64))
    return target, random_markov_model(TOY_WORDS.vocab_size, 1, seed=100 + seed, sharpness=2.0)


# Task 1: verify_proposal ---------------------------------------------------------------------------

def check_verify(p, proposal, seed, what):
    p = torch.as_tensor(p, dtype=torch.float64)
    mine, theirs = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    case = f"verify_proposal(p={p.tolist()}, proposal={proposal}, generator=torch.Generator().manual_seed({seed}))"
    tokens = call_learner(learner("verify_proposal"), p.clone(), list(proposal), mine, case=case)
    decisions = []
    expected = reference_verify(p.numpy(), list(proposal), theirs, decisions)
    if tokens != expected or not torch.equal(mine.get_state(), theirs.get_state()):
        steps = "\n".join(f"    position {pos}: token {tok}  {kind}" + (f"  (u = {u:.6g}, p = {pp:.6g})" if u is not None else "")
                          for pos, tok, kind, u, pp in decisions)
        same = "the tokens are right but the number of draws differs" if tokens == expected else "other tokens"
        raise GradingFailure(f"verify_proposal got {what} wrong ({same}).\n  {case}\n  yours:     {tokens!r}\n"
                             f"  expected:  {expected!r}\nThe reference's decisions:\n{steps}")
    if any(type(t) is not int for t in tokens):
        raise GradingFailure(f"verify_proposal must return plain Python ints; got {tokens!r}")
    return tokens


@pytest.mark.task(1)
def test_verify_worked_example():
    assert check_verify([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]], [1], 0, "the worked example") == [2]


@pytest.mark.task(1)
def test_verify_keeps_a_token_the_target_is_sure_of():
    check_verify([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.3, 0.3, 0.4]], [1, 2], 3, "a proposal with p = 1 at every position")


@pytest.mark.task(1)
def test_verify_at_temperature_zero_keeps_exactly_the_argmax():
    one_hot = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    check_verify(one_hot, [2, 1], 5, "one-hot rows (temperature 0): keep 2, reject 1 (p = 0) and take the argmax 0")


@pytest.mark.task(1)
def test_verify_with_no_proposal_samples_one_token():
    check_verify([[0.1, 0.2, 0.7]], [], case_seed(4), "an empty proposal (one token from p[0])")


@pytest.mark.generated
@pytest.mark.task(1)
def test_verify_matches_the_reference_on_random_cases():
    gen = torch.Generator().manual_seed(case_seed(12))
    for index in range(300):
        vocab = int(torch.randint(2, 7, (), generator=gen))
        k = int(torch.randint(0, 5, (), generator=gen))
        p = torch.softmax(2.0 * torch.randn((k + 1, vocab), generator=gen, dtype=torch.float64), dim=-1)
        proposal = torch.randint(0, vocab, (k,), generator=gen).tolist()
        check_verify(p, proposal, case_seed(1000 + index), f"random case {index}")


@pytest.mark.statistical
@pytest.mark.task(1)
def test_verify_emits_tokens_distributed_as_p():
    """Chi-square goodness of fit of the first emitted token against p[0], the proposal fixed at token 1.

    Statistic: Pearson's chi-square over the 5 tokens (4 degrees of freedom), 20,000 runs of one
    generator seeded with 20261201. Threshold: fail when the p-value is below 1e-3. The reference's
    p-value is checked in tests/maintainer/test_margins_chi_square.py; resampling a rejection from
    p with the rejected token still in it scores far beyond (mutant gate).
    """
    statistic, pvalue, counts = first_token_chi_square(learner("verify_proposal"))
    if pvalue < STAT_ALPHA:
        raise GradingFailure(
            "The token verify_proposal emits first is not distributed as the target's p[0].\n"
            f"  runs: {STAT_RUNS}, proposal [1], p[0] = {STAT_P0[0].tolist()}\n"
            f"  observed frequencies: {[round(counts[t] / STAT_RUNS, 4) for t in range(5)]}\n"
            f"  chi-square = {statistic:.1f} (4 degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            "A common cause: after rejecting the proposed token, sampling from p with that token still in it.")


# Task 2: target_proposal ---------------------------------------------------------------------------

PROPOSALS = {
    "strip-the-tail": (" abc ab", " a", "b"),
    "whole-words": (" ab ba", " ab", " ba"),
    "another-word-than-the-tail": (" ba ab", " a", ""),
    "only-the-tail": (" ab", " ab", ""),
    "unknown-piece": ("ab\ufffdab", "a", "b"),
    "missing-character-first": ("acab", "a", ""),
}


@pytest.mark.parametrize("name", list(PROPOSALS))
@pytest.mark.task(2)
def test_target_proposal(name):
    drafted, tail, expected_text = PROPOSALS[name]
    got = call_learner(learner("target_proposal"), drafted, tail, TOY_CHARS,
                       case=f"target_proposal({drafted!r}, tail={tail!r}, the toy target tokenizer over 'a', 'b', ' ')")
    expected = TOY_CHARS.encode(expected_text)
    if got != expected:
        raise GradingFailure(
            f"target_proposal({drafted!r}, tail={tail!r}, target over 'a', 'b', ' ')\n  yours:     {got!r}\n"
            f"  expected:  {expected!r} (the text {expected_text!r})\n"
            "The draft's text must start with the tail; what follows the tail is proposed up to the first character "
            "the target has no id for (here 'c' and U+FFFD, the text of <unk>).")


# Task 3: cross_tokenizer_generate ------------------------------------------------------------------

def check_case(*args, **kwargs):
    return cases.check_case(learner("cross_tokenizer_generate"), *args, **kwargs)


@pytest.mark.task(3)
def test_toy_worked_case():
    result, _, rec_draft = check_case("toy chains", *pair_with_tokenizers(toy_models()), "ab a", 8, 2, seed=3)
    if rec_draft.feeds and rec_draft.feeds[0][0] != TOY_WORDS.BOS:
        raise GradingFailure("The draft's first call must start with <bos> (draft_tokenizer.encode(head) puts it there).")


def pair_with_tokenizers(models):
    target, draft = models
    return target, TOY_CHARS, draft, TOY_WORDS


@pytest.mark.generated
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.task(3)
def test_toy_cases_match_the_reference(seed):
    seed = case_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    for index in range(20):
        prompt = "".join("ab "[int(i)] for i in torch.randint(0, 3, (int(torch.randint(1, 6, (), generator=gen)),), generator=gen))
        gamma = int(torch.randint(1, 5, (), generator=gen))
        max_new_tokens = int(torch.randint(1, 20, (), generator=gen))
        temperature = [1.0, 0.0, 0.6, 1.5][index % 4]
        try:
            check_case(f"toy chains (seed {seed})", *pair_with_tokenizers(toy_models(seed)), prompt, max_new_tokens, gamma,
                       seed=case_seed(500 + index), temperature=temperature)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 20; the cases before it passed)") from None


@pytest.mark.task(3)
def test_the_draft_keeps_its_cache_up_to_the_common_prefix():
    result, _, rec_draft = check_case("toy chains", *pair_with_tokenizers(toy_models()), "ab ab ba ab", 30, 3, seed=8)
    fed = rec_draft.tokens_fed
    if fed > 4 * len(rec_draft.feeds):
        raise GradingFailure(f"The draft was fed {fed} ids in {len(rec_draft.feeds)} calls: keep its cache up to the longest "
                             "common prefix with the new ids and feed only the rest.")


@pytest.mark.task(3)
def test_a_short_draft_window_keeps_bos_and_the_last_ids():
    check_case("toy chains, draft_window = 6", *pair_with_tokenizers(toy_models()), "ab ba ab ab ba", 25, 2, seed=9, window=6)


@pytest.mark.parametrize("max_new_tokens", [0, 1, 2])
@pytest.mark.task(3)
def test_the_last_rounds_stay_inside_the_budget(max_new_tokens):
    result, rec_target, rec_draft = check_case("toy chains", *pair_with_tokenizers(toy_models()), "ab a", max_new_tokens, 4, seed=2)
    if max_new_tokens <= 1 and rec_draft.feeds:
        raise GradingFailure("With room for one token only, the round must not call the draft.")


@pytest.fixture(scope="module")
def trained():
    return {"float32": (load_target(), load_word_draft()), "float64": (load_target(torch.float64), load_word_draft(torch.float64))}


@pytest.mark.generated
@pytest.mark.parametrize("gamma, temperature", [(2, 1.0), (3, 0.7), (1, 1.0)])
@pytest.mark.task(3)
def test_trained_models_match_the_reference(trained, gamma, temperature):
    target, draft = trained["float32"]
    check_case("the committed character target and word-piece draft", target, char_tokenizer(), draft, word_tokenizer(),
               "Assignment statements ", 60, gamma, seed=case_seed(gamma), temperature=temperature)


@pytest.mark.task(3)
def test_temperature_zero_is_the_targets_greedy_decoding(trained):
    target, draft = trained["float64"]
    result, _, _ = check_case("the committed models, float64", target, char_tokenizer(), draft, word_tokenizer(),
                              "The class ", 60, 3, seed=0, temperature=0.0)
    greedy = autoregressive_generate(target, char_tokenizer().encode("The class "), 60, torch.Generator(), temperature=0.0)
    if result.tokens != greedy:
        raise GradingFailure("At temperature 0 the output must be the target's greedy decoding, whatever the draft wrote.")


SEQ_RUNS, SEQ_SEED, SEQ_LENGTH, SEQ_GAMMA = 2000, 20261202, 3, 2


def sequence_chi_square(generate, runs=SEQ_RUNS, seed=SEQ_SEED):
    target, draft = toy_models(2)
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, target, TOY_CHARS, draft, TOY_WORDS, "a", SEQ_LENGTH, SEQ_GAMMA, generator,
                              case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    prompt = TOY_CHARS.encode("a")
    statistic = 0.0
    for sequence in target.all_continuations(SEQ_LENGTH):
        expected = runs * target.sequence_probability(prompt, sequence)
        statistic += (counts[sequence] - expected) ** 2 / expected
    return statistic, chi_square_sf(statistic, 3 ** SEQ_LENGTH - 1), counts


@pytest.mark.statistical
@pytest.mark.task(3)
def test_generated_text_is_distributed_as_the_target():
    """Chi-square goodness of fit of whole generated sequences against the toy target chain.

    Statistic: Pearson's chi-square over all 27 continuations of 3 characters of the prompt "a"
    (26 degrees of freedom), exact expected counts from the order-2 target chain, 2,000 runs from
    one generator seeded with 20261202 (gamma = 2, the toy word-piece draft, greedy). Threshold:
    fail when the p-value is below 1e-3. The reference's p-value is checked in
    tests/maintainer/test_margins_chi_square.py; the mutants that keep the rejected token in the
    resampling distribution, or accept with min(1, p/q) for a stand-in q, score far beyond.
    """
    statistic, pvalue, counts = sequence_chi_square(learner("cross_tokenizer_generate"))
    if pvalue < STAT_ALPHA:
        raise GradingFailure(
            "The text cross_tokenizer_generate produces is not distributed as the target's.\n"
            f"  runs: {SEQ_RUNS}, 3 new characters after 'a', gamma = {SEQ_GAMMA}, toy chains\n"
            f"  chi-square = {statistic:.1f} (26 degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            "Common causes: a rejection resampled from p with the proposed token still in it; a cache not rolled back.")


# Bad input: graded with the task of the function it calls (the exercise text numbers its tasks per function).

# Task 3: cross_tokenizer_generate ------------------------------------------------------------------

@pytest.mark.parametrize("name, prompt, max_new_tokens, gamma, temperature, mention", [
    ("empty-prompt", "", 5, 2, 1.0, "prompt"),
    ("prompt-not-text", [0, 1], 5, 2, 1.0, "prompt"),
    ("gamma-zero", "ab", 5, 0, 1.0, "gamma"),
    ("negative-max-new-tokens", "ab", -2, 2, 1.0, "max_new_tokens"),
    ("negative-temperature", "ab", 5, 2, -1.0, "temperature"),
    ("prompt-character-the-target-lacks", "abc", 5, 2, 1.0, "vocabulary"),
])
@pytest.mark.task(3)
def test_bad_input_raises_a_value_error(name, prompt, max_new_tokens, gamma, temperature, mention):
    target, draft = toy_models()
    expect_value_error(learner("cross_tokenizer_generate"), target, TOY_CHARS, draft, TOY_WORDS, prompt, max_new_tokens, gamma,
                       torch.Generator().manual_seed(0), temperature=temperature, mentions=(mention,), problem=name.replace("-", " "))
