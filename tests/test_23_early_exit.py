"""Grading suite for exercise 23-early-exit: early_exit_draft, early_exit_verify, early_exit_generate.

Every case runs the independent reference on one copy of a model and the learner's code on a
twin, and compares calls, tokens, statistics, layer computations and the generator's state
(tests/reference/ex23_checks.py). The two committed 6-layer targets make it real, the shipped one
(never trained to exit early) and its LayerSkip twin (trained to): at temperature 0 the output
must be each one's greedy decoding, for every exit layer. Tiny random GPTs make the generated
cases and the chi-square test exact.
"""

from __future__ import annotations

import functools
from collections import Counter
from itertools import product

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error
from speckata.grading.streams import case_seed
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import char_tokenizer, load_target
from tests.reference.ex23_checks import TARGET_NAMES, TARGETS, check_draft, check_generate, check_verify, learner
from tests.reference.ex23_reference import layer_model
from tests.shared.statistics import pooled_chi_square

EXERCISE = "23-early-exit"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]


# Task 1: drafting with the first k layers -------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_draft():
    check_draft(load_target, char_tokenizer().encode(PROMPTS[0]), 3, 2, 0, 0, "the committed target (the worked example)",
                prefill=False)


@pytest.mark.parametrize("target, exit_layer", list(product(TARGETS, [1, 5])))
@pytest.mark.task(1)
def test_draft_on_the_committed_target(target, exit_layer):
    check_draft(TARGETS[target], char_tokenizer().encode(PROMPTS[1]), exit_layer, 3, case_seed(exit_layer), 1.0,
                f"{TARGET_NAMES[target]}, holding all but the newest token")


@pytest.mark.generated
@pytest.mark.task(1)
def test_draft_mid_sequence_matches_the_reference():
    for index in range(6):
        layers = 2 + index % 3
        generator = torch.Generator().manual_seed(case_seed(100 + index))
        sequence = torch.randint(0, 5, (2 + index,), generator=generator).tolist()
        check_draft(lambda: layer_model(case_seed(110 + index), layers=layers), sequence, 1 + index % (layers - 1),
                    1 + index % 4, case_seed(120 + index), (1.0, 0.7, 0)[index % 3],
                    f"random tiny GPT {index} of {layers} layers holding all but the newest token")


@pytest.mark.task(1)
def test_no_draft_makes_no_call():
    check_draft(lambda: layer_model(case_seed(130)), [1, 2, 3], 1, 0, 0, 1.0, "a tiny GPT, gamma = 0")


# Task 2: verification that reuses the draft's work -------------------------------------------------------

@pytest.mark.task(2)
def test_worked_example_verify():
    check_verify(load_target, char_tokenizer().encode(PROMPTS[0]), 3, 2, 0, 0, "the committed target (the worked example)",
                 prefill=False)


@pytest.mark.parametrize("target, exit_layer", list(product(TARGETS, [1, 3, 5])))
@pytest.mark.task(2)
def test_verify_reuses_the_drafts_states(target, exit_layer):
    check_verify(TARGETS[target], char_tokenizer().encode(PROMPTS[0]), exit_layer, 4, case_seed(200 + exit_layer), 1.0,
                 TARGET_NAMES[target])


@pytest.mark.generated
@pytest.mark.task(2)
def test_verify_mid_sequence_matches_the_reference():
    for index in range(4):
        sequence = torch.randint(0, 5, (3 + index,), generator=torch.Generator().manual_seed(case_seed(210 + index))).tolist()
        check_verify(lambda: layer_model(case_seed(220 + index), layers=4), sequence, 1 + index % 3, 1 + index,
                     case_seed(230 + index), 1.0, f"random tiny GPT {index} of 4 layers")


@pytest.mark.task(2)
def test_verify_with_no_draft_runs_the_pending_tokens_through_every_layer():
    check_verify(lambda: layer_model(case_seed(240)), [4, 0, 2], 2, 0, 0, 1.0, "a tiny GPT of 3 layers, no draft")


# Task 3: the decoder: accept, then crop every layer ---------------------------------------------------------

@pytest.mark.task(3)
def test_worked_example_generate():
    check_generate(load_target, char_tokenizer().encode(PROMPTS[0]), 16, 3, 4, 0, 0, "the committed target")


@pytest.mark.parametrize("target, exit_layer", list(product(TARGETS, [1, 3, 5])))
@pytest.mark.task(3)
def test_sampled_on_the_committed_target_matches_the_reference(target, exit_layer):
    check_generate(TARGETS[target], char_tokenizer().encode(PROMPTS[2]), 24, exit_layer, 3, case_seed(300 + exit_layer),
                   1.0, TARGET_NAMES[target])


@pytest.mark.task(3)
def test_every_layer_ends_holding_all_but_the_newest_token():
    prompt = char_tokenizer().encode(PROMPTS[1])
    _, model = check_generate(load_target, prompt, 20, 2, 5, case_seed(310), 1.0, "the committed target")
    if set(model.layer_cache_lengths) != {len(prompt) + 19}:
        raise GradingFailure(f"After 20 new tokens every layer must hold the prompt and 19 of them "
                             f"({len(prompt) + 19}); the layers hold {model.layer_cache_lengths}.")


@pytest.mark.generated
@pytest.mark.task(3)
def test_random_tiny_models_match_the_reference():
    for index in range(8):
        layers = 2 + index % 3
        prompt = torch.randint(0, 5, (1 + index % 3,), generator=torch.Generator().manual_seed(case_seed(320 + index))).tolist()
        try:
            check_generate(lambda: layer_model(case_seed(330 + index), layers=layers), prompt, 6 + 2 * index,
                           1 + index % (layers - 1), 1 + index % 4, case_seed(340 + index), (1.0, 0.6, 0)[index % 3],
                           f"random tiny GPT {index} of {layers} layers")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 8; the cases before it passed)") from None


@pytest.mark.parametrize("max_new_tokens", [0, 1, 2])
@pytest.mark.task(3)
def test_short_outputs(max_new_tokens):
    check_generate(lambda: layer_model(case_seed(350)), [1, 2], max_new_tokens, 1, 3, 0, 1.0, "a tiny GPT of 3 layers")


# Task 4: temperature 0 is the target's greedy decoding ----------------------------------------------------------

@functools.cache
def targets_greedy_decoding(target, prompt_text):
    """The target's own greedy decoding of 40 new tokens: five exit layers share three prompts, so it is computed once each."""
    prompt = char_tokenizer().encode(prompt_text)
    return tuple(autoregressive_generate(TARGETS[target](), prompt, 40, torch.Generator(), temperature=0))


@pytest.mark.parametrize("target, exit_layer", list(product(TARGETS, [1, 2, 3, 4, 5])))
@pytest.mark.task(4)
def test_greedy_output_is_the_targets_greedy_decoding(target, exit_layer):
    model = TARGETS[target]()
    text = PROMPTS[exit_layer % 3]
    prompt = char_tokenizer().encode(text)
    greedy = list(targets_greedy_decoding(target, text))
    model.forward_new(prompt + greedy[:-1])  # it arrives holding a decoding already, as a used model does: the learner resets it
    case = f"case: early_exit_generate(target, {text!r} encoded, 40, exit_layer={exit_layer}, gamma=4, " \
           f"torch.Generator(), temperature=0) on {TARGET_NAMES[target]}, whose layers hold an earlier decoding"
    got = call_learner(learner("early_exit_generate"), model, prompt, 40, exit_layer, 4, torch.Generator(), 0, case=case)
    mine = list(getattr(got, "tokens", []))
    if mine != greedy:
        at = next((i for i, (a, b) in enumerate(zip(mine, greedy)) if a != b), min(len(mine), len(greedy)))
        raise GradingFailure(f"At temperature 0 the output must be the target's greedy decoding; new token {at} differs: "
                             f"expected {greedy[at:at + 8]}, got {mine[at:at + 8]}.\n{case}\nCommon causes: no model.reset() "
                             f"first, states from the wrong layer, a layer left holding rejected drafts, the wrong rows of p.")


# Task 5: the output is distributed as the target's ----------------------------------------------------------------

STAT_RUNS = 600
STAT_SEED = 20261202
STAT_LENGTH = 3  # new tokens per run: 27 possible sequences over 3 tokens
STAT_GAMMA = 2
STAT_ALPHA = 1e-3


def stat_model():
    return layer_model(7, vocab=3, layers=2, sharpness=6.0)


def sequence_law(model) -> dict[tuple[int, ...], float]:
    """The target's exact probability of each 3-token continuation of [0] (all layers, no cache)."""
    law = {}
    with torch.no_grad():
        for sequence in product(range(3), repeat=STAT_LENGTH):
            ids = torch.tensor([[0, *sequence]])
            probs = torch.softmax(model(ids)[0].double(), dim=-1)
            law[sequence] = float(torch.prod(torch.stack([probs[i, token] for i, token in enumerate(sequence)])))
    return law


def sequence_chi_square(generate, runs: int = STAT_RUNS, seed: int = STAT_SEED):
    """The statistic, its p-value, the counts of each sequence and the degrees of freedom."""
    model = stat_model()
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, model, [0], STAT_LENGTH, 1, STAT_GAMMA, generator, case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    statistic, df, pvalue = pooled_chi_square(counts, sequence_law(model), runs)
    return statistic, pvalue, counts, df


@pytest.mark.statistical
@pytest.mark.task(5)
def test_generated_sequences_are_distributed_as_the_target():
    """Chi-square goodness of fit of whole generated sequences against the target's exact law.

    Statistic: Pearson's chi-square of the counts of the 27 sequences of 3 new tokens after [0]
    against their exact probabilities under a tiny random 2-layer GPT over 3 tokens (all layers),
    with the sequences expected fewer than 5 times pooled into one bin. Sample: 600 runs from
    one generator seeded with 20261202 (exit_layer 1, gamma 2, temperature 1). Threshold: fail
    when the p-value is below 1e-3. The reference scores p = 0.29;
    tests/maintainer/test_margins_chi_square.py checks that, and that a decoder drawing a
    rejection's replacement from p instead of the residual (about 3e-10) or the bonus from the
    last draft's row (about 3e-67) scores far below the threshold, with a power of at least 0.99
    against each on any seed (0.997 against the replacement from p; 500 runs gave only 0.986).
    """
    statistic, pvalue, counts, df = sequence_chi_square(learner("early_exit_generate"))
    if pvalue < STAT_ALPHA:
        law = sequence_law(stat_model())
        worst = sorted(law, key=lambda s: -abs(counts[s] - STAT_RUNS * law[s]))[:5]
        rows = "\n".join(f"    {list(s)}  observed {counts[s] / STAT_RUNS:.4f}  target {law[s]:.4f}" for s in worst)
        raise GradingFailure(
            "The sequences early_exit_generate produces are not distributed as the target's.\n"
            f"  runs: {STAT_RUNS}, 3 new tokens each after [0], exit_layer 1, gamma {STAT_GAMMA}, a tiny 2-layer GPT over "
            f"3 tokens\n  chi-square {statistic:.1f} on {df} degrees of freedom, p = {pvalue:.2g} (threshold "
            f"{STAT_ALPHA})\n  the sequences furthest from the target's law:\n{rows}\n"
            "Check the rule: u < p_i[x] / q_i[x] with q_i the early exit's distribution the draft was sampled from, "
            "the replacement from max(p_i - q_i, 0), the bonus from p_k.")


# Task 6: bad input --------------------------------------------------------------------------------------------------

def bad_inputs():
    tiny = layer_model(0)
    return {
        "markov-chain": ((MarkovModel([[0.5, 0.5], [0.5, 0.5]]), [0], 4, 1, 2), ("forward_layers",)),
        "exit-layer-0": ((tiny, [0], 4, 0, 2), ("exit_layer",)),
        "exit-layer-all": ((tiny, [0], 4, 3, 2), ("exit_layer",)),
        "exit-layer-float": ((tiny, [0], 4, 1.0, 2), ("exit_layer",)),
        "exit-layer-bool": ((tiny, [0], 4, True, 2), ("exit_layer",)),
        "empty-prompt": ((tiny, [], 4, 1, 2), ("prompt",)),
        "negative-max-new-tokens": ((tiny, [0], -1, 1, 2), ("max_new_tokens",)),
        "gamma-0": ((tiny, [0], 4, 1, 0), ("gamma",)),
        "negative-temperature": ((tiny, [0], 4, 1, 2, torch.Generator(), -1.0), ("temperature",)),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(6)
def test_bad_input_raises_value_error(name):
    args, phrases = bad_inputs()[name]
    if len(args) == 5:
        args = (*args, torch.Generator())
    expect_value_error(learner("early_exit_generate"), *args, mentions=phrases, problem=name)
