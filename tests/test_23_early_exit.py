"""Grading suite for exercise 23-early-exit: early_exit_draft, early_exit_verify, early_exit_generate.

Every case runs the independent reference (tests/reference/ex23_reference.py) on one copy of a
model and the learner's code on a twin wrapped in RecordingLayerModel, and compares the calls
(which layers ran over how many rows, against which cached lengths), the tokens, the statistics,
the layer computations the model counted and the generator's state. The committed 6-layer target
makes it real (at temperature 0 the output must be its greedy decoding, for every exit layer);
tiny random GPTs make the generated cases and the chi-square test exact.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
import torch

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.round_table import Column, render_rounds
from speckata.grading.streams import case_seed
from speckata.models.decoding import autoregressive_generate
from speckata.models.early_exit import RecordingLayerModel
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import char_tokenizer, load_target
from tests.reference.ex23_reference import layer_model, reference_draft, reference_generate, reference_verify
from tests.shared.statistics import pooled_chi_square

EXERCISE = "23-early-exit"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]


def learner(name):
    return learner_function(EXERCISE, name)


def shown(call) -> str:
    if call[0] == "embed":
        return f"embed_new({list(call[1])}) with layer 0 holding {call[2]} tokens"
    if call[0] == "layers":
        return f"forward_layers({call[1]} rows, {call[2]}, {call[3]}) with layer cache lengths {call[4]}"
    if call[0] == "crop":
        return f"crop({call[1]}) with {call[2]} tokens in every layer"
    if call[0] == "crop_layers":
        return f"crop_layers({call[1]}, {call[2]}, {call[3]}) with layer cache lengths {call[4]}"
    if call[0] == "forward":
        return f"forward_new({list(call[1])}) with {call[2]} tokens cached"
    return f"{call[0]}{call[1:]}"


def check_calls(mine, theirs, case, before=""):
    for index, (want, have) in enumerate(zip(theirs, mine)):
        if want != have:
            raise GradingFailure(f"Call {index} on the model differs from the contract's:\n  expected {shown(want)}\n"
                                 f"  got      {shown(have)}\n{before}{case}")
    if len(mine) != len(theirs):
        extra = [shown(c) for c in (mine[len(theirs):] if len(mine) > len(theirs) else theirs[len(mine):])][:2]
        raise GradingFailure(f"The contract makes {len(theirs)} calls on the model; you made {len(mine)}. "
                             f"{'Yours go on with' if len(mine) > len(theirs) else 'Missing'}: {extra}\n{before}{case}")


def check_close(name, got, expected, case, atol=1e-6):
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(expected.shape):
        raise GradingFailure(f"{name} must be a tensor of shape {tuple(expected.shape)}; got "
                             f"{tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__}.\n{case}")
    if not torch.allclose(got.detach().double(), expected.detach().double(), atol=atol, rtol=1e-5):
        worst = (got.detach().double() - expected.detach().double()).abs().max().item()
        raise GradingFailure(f"{name} differs from the reference's by up to {worst:.3g}.\n{case}")


def check_generator(generator, expected_state, what, case):
    if not torch.equal(generator.get_state(), expected_state):
        raise GradingFailure(f"The generator's state after {what} differs from the reference's: you drew another "
                             f"number of random values (the contract: one sample_token per draft, one draw_uniform "
                             f"per tested draft, one sample_token for the replacement or bonus).\n{case}")


# Task 1: drafting with the first k layers -------------------------------------------------------------

def prepared(factory, sequence, prefill):
    """A fresh model at the start of a round: holding sequence[:-1] in every layer, or nothing (a prompt)."""
    model = factory()
    if prefill and len(sequence) > 1:
        model.forward_new(sequence[:-1])
    return model


def check_draft(factory, sequence, exit_layer, gamma, seed, temperature, what, prefill=True):
    case = (f"case: early_exit_draft(model, {sequence}, exit_layer={exit_layer}, gamma={gamma}, "
            f"torch.Generator().manual_seed({seed}), temperature={temperature}) on {what}")
    reference_model = RecordingLayerModel(prepared(factory, sequence, prefill))
    reference_generator = torch.Generator().manual_seed(seed)
    drafts, q, states = reference_draft(reference_model, sequence, exit_layer, gamma, reference_generator, temperature)
    model = RecordingLayerModel(prepared(factory, sequence, prefill))
    generator = torch.Generator().manual_seed(seed)
    got = call_learner(learner("early_exit_draft"), model, list(sequence), exit_layer, gamma, generator, temperature,
                       case=case)
    check_calls(model.calls, reference_model.calls, case)
    if not isinstance(got, tuple) or len(got) != 3:
        raise GradingFailure(f"early_exit_draft must return (drafts, q, states); it returned {got!r:.120}.\n{case}")
    if list(got[0]) != drafts or not all(type(x) is int for x in got[0]):
        raise GradingFailure(f"early_exit_draft drafted {got[0]!r}; expected {drafts} (plain ints).\n{case}")
    check_close("q", got[1], q, case)
    check_close("states", got[2], states, case + "\nstates: every row of every forward_layers(..., 0, exit_layer) "
                "output, in order (the first pass's pending rows included).", atol=1e-5)
    check_generator(generator, reference_generator.get_state(), "drafting", case)


@pytest.mark.task(1)
def test_worked_example_draft():
    check_draft(load_target, char_tokenizer().encode(PROMPTS[0]), 3, 2, 0, 0, "the committed target (the worked example)",
                prefill=False)


@pytest.mark.parametrize("exit_layer", [1, 5])
@pytest.mark.task(1)
def test_draft_on_the_committed_target(exit_layer):
    check_draft(load_target, char_tokenizer().encode(PROMPTS[1]), exit_layer, 3, case_seed(exit_layer), 1.0,
                "the committed target, holding all but the newest token")


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

def check_verify(factory, sequence, exit_layer, gamma, seed, temperature, what):
    case = (f"case: drafts from early_exit_draft(model, {sequence}, {exit_layer}, {gamma}, "
            f"torch.Generator().manual_seed({seed}), {temperature}), then early_exit_verify(model, sequence, drafts, "
            f"states, {exit_layer}, {temperature}) on {what}")
    twins = []
    for _ in range(2):
        model = prepared(factory, sequence, prefill=True)
        drafts, q, states = reference_draft(model, sequence, exit_layer, gamma, torch.Generator().manual_seed(seed),
                                            temperature)
        twins.append((RecordingLayerModel(model), model.layer_computations))
    (reference_model, reference_before), (model, before) = twins
    expected = reference_verify(reference_model, sequence, drafts, states, exit_layer, temperature)
    got = call_learner(learner("early_exit_verify"), model, list(sequence), drafts, states, exit_layer, temperature,
                       case=case)
    spent, needed = model.layer_computations - before, reference_model.layer_computations - reference_before
    if spent > needed:
        raise GradingFailure(f"early_exit_verify made {spent} layer computations; the contract needs {needed}: the "
                             f"last draft through layers 0..{exit_layer - 1}, then {states.shape[0] + 1} rows through "
                             f"layers {exit_layer}..{model.num_layers - 1}. The draft already ran the first "
                             f"{exit_layer} layers over {states.shape[0]} rows: reuse states, do not recompute them.\n"
                             f"  your calls: {[shown(c) for c in model.calls]}\n{case}")
    check_calls(model.calls, reference_model.calls, case)
    check_close("p", got, expected, case, atol=1e-6)
    full = factory()
    target_rows = full.forward_new(sequence + drafts)[-(len(drafts) + 1):]
    check_close("p against the target's own forward_new", got,
                torch.softmax(target_rows.double(), -1) if temperature == 1.0 else expected, case, atol=1e-5)
    lengths = model.layer_cache_lengths
    if set(lengths) != {len(sequence) + len(drafts)}:
        raise GradingFailure(f"After verification every layer must hold sequence + drafts ({len(sequence) + len(drafts)} "
                             f"tokens); the layers hold {lengths}.\n{case}")


@pytest.mark.parametrize("exit_layer", [1, 3, 5])
@pytest.mark.task(2)
def test_verify_reuses_the_drafts_states(exit_layer):
    check_verify(load_target, char_tokenizer().encode(PROMPTS[0]), exit_layer, 4, case_seed(200 + exit_layer), 1.0,
                 "the committed target")


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

ROUND_COLUMNS = [Column("drafts", "<"), Column("crop")]
DECISION_COLUMNS = [Column("decision", "<"), Column("token"), Column("u")]


def check_generate(factory, prompt, max_new_tokens, exit_layer, gamma, seed, temperature, what):
    case = (f"case: early_exit_generate(model, {list(prompt)[:12]}, max_new_tokens={max_new_tokens}, "
            f"exit_layer={exit_layer}, gamma={gamma}, torch.Generator().manual_seed({seed}), "
            f"temperature={temperature}) on {what}")
    expected = reference_generate(factory(), prompt, max_new_tokens, exit_layer, gamma, seed, temperature)
    model = factory()
    model.forward_new(prompt[:1])  # a stale cache: the contract starts with reset()
    recorder = RecordingLayerModel(model)
    generator = torch.Generator().manual_seed(seed)
    before = model.layer_computations
    got = call_learner(learner("early_exit_generate"), recorder, list(prompt), max_new_tokens, exit_layer, gamma,
                       generator, temperature, case=case)
    mine = list(getattr(got, "tokens", []))
    first = next((i for i, (a, b) in enumerate(zip(mine, expected.tokens)) if a != b), None)
    table = render_rounds(ROUND_COLUMNS, DECISION_COLUMNS, expected.rounds, yours=[str(t) for t in mine],
                          first=first).text
    rounds = f"The reference's rounds:\n{table}\n"
    check_calls([c for c in recorder.calls if c[0] != "reset"], [c for c in expected.calls if c[0] != "reset"],
                case, rounds)
    if mine != expected.tokens or not all(type(t) is int for t in mine):
        raise GradingFailure(f"early_exit_generate's tokens differ from the reference's (plain ints expected):\n"
                             f"{rounds}{case}")
    for name in ("accepted_per_pass", "drafted_per_pass", "target_passes", "draft_passes"):
        if getattr(got, name, None) != getattr(expected, name):
            raise GradingFailure(f"{name} is {getattr(got, name, None)}; expected {getattr(expected, name)}.\n{case}")
    spent = model.layer_computations - before
    if spent != expected.layer_computations:
        raise GradingFailure(f"The model counted {spent} layer computations; the contract makes "
                             f"{expected.layer_computations}.\n{case}")
    check_generator(generator, expected.generator_state, "early_exit_generate", case)
    return got, model


@pytest.mark.task(3)
def test_worked_example_generate():
    check_generate(load_target, char_tokenizer().encode(PROMPTS[0]), 16, 3, 4, 0, 0, "the committed target")


@pytest.mark.parametrize("exit_layer", [1, 3, 5])
@pytest.mark.task(3)
def test_sampled_on_the_committed_target_matches_the_reference(exit_layer):
    check_generate(load_target, char_tokenizer().encode(PROMPTS[2]), 24, exit_layer, 3, case_seed(300 + exit_layer), 1.0,
                   "the committed target")


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

@pytest.mark.parametrize("exit_layer", [1, 2, 3, 4, 5])
@pytest.mark.task(4)
def test_greedy_output_is_the_targets_greedy_decoding(exit_layer):
    target = load_target()
    prompt = char_tokenizer().encode(PROMPTS[exit_layer % 3])
    greedy = autoregressive_generate(target, prompt, 40, torch.Generator(), temperature=0)
    case = f"case: early_exit_generate(target, {PROMPTS[exit_layer % 3]!r} encoded, 40, exit_layer={exit_layer}, gamma=4, " \
           f"torch.Generator(), temperature=0) on the committed target"
    got = call_learner(learner("early_exit_generate"), target, prompt, 40, exit_layer, 4, torch.Generator(), 0, case=case)
    mine = list(getattr(got, "tokens", []))
    if mine != greedy:
        at = next((i for i, (a, b) in enumerate(zip(mine, greedy)) if a != b), min(len(mine), len(greedy)))
        raise GradingFailure(f"At temperature 0 the output must be the target's greedy decoding; new token {at} differs: "
                             f"expected {greedy[at:at + 8]}, got {mine[at:at + 8]}.\n{case}\nCommon causes: states "
                             f"from the wrong layer, a layer left holding rejected drafts, the wrong rows of p.")


# Task 5: the output is distributed as the target's ----------------------------------------------------------------

STAT_RUNS = 500
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
    with the sequences expected fewer than 5 times pooled into one bin. Sample: 500 runs from
    one generator seeded with 20261202 (exit_layer 1, gamma 2, temperature 1). Threshold: fail
    when the p-value is below 1e-3. The reference scores p = 0.16;
    tests/maintainer/test_margins_chi_square.py checks that, and that a decoder drawing a
    rejection's replacement from p instead of the residual (about 1e-8) or the bonus from the
    last draft's row (about 1e-30) scores far below the threshold.
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
