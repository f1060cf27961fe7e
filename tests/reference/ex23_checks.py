"""Exercise 23-early-exit: how the suite calls the learner's three functions and checks what comes back.

Each check runs the independent reference (tests/reference/ex23_reference.py) on one copy of a
model and the learner's code on a twin wrapped in RecordingLayerModel, and compares the calls
(which layers ran over how many rows, against which cached lengths), the tokens, the statistics,
the layer computations the model counted and the generator's state. Kept apart so that
tests/test_23_early_exit.py reads like the exercise text. TARGETS: the two committed 6-layer
targets the suite grades on, the shipped one (never trained to exit early) and its LayerSkip twin.
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure, call_learner, learner_function
from speckata.grading.events import call_mismatch, compared, lead_with_difference
from speckata.grading.round_table import Column, render_rounds
from speckata.models.early_exit import RecordingLayerModel
from speckata.models.pretrained import load_layerskip_target, load_target
from tests.reference.call_by_call import check_call_by_call
from tests.reference.ex23_reference import reference_draft, reference_generate, reference_verify
from tests.reference.result_tail import check_counters
from tests.reference.round_events import entries, lead_with_round_event

EXERCISE = "23-early-exit"
TARGETS = {"shipped": load_target, "layerskip": load_layerskip_target}  # name -> a fresh model
TARGET_NAMES = {"shipped": "the committed target", "layerskip": "the committed LayerSkip target"}


CALL_KINDS = ("embed", "layers", "crop", "crop_layers", "forward")  # the reset of the stale cache is not compared


def verifies(call) -> bool:
    """The round's verification pass: the remaining layers, from the exit on."""
    return call[0] == "layers" and call[2] != 0


def closes(call) -> bool:
    return call[0] in ("crop", "crop_layers")


def learner(name):
    return learner_function(EXERCISE, name)


# A recorded call in words, by kind; the fields after the kind as RecordingLayerModel records them.
CALL_WORDS = {
    "embed": lambda ids, held: f"embed_new({list(ids)}) with layer 0 holding {held} tokens",
    "layers": lambda rows, start, end, lengths: f"forward_layers({rows} rows, {start}, {end}) with layer cache "
                                                f"lengths {lengths}",
    "crop": lambda length, held: f"crop({length}) with {held} tokens in every layer",
    "crop_layers": lambda length, start, end, lengths: f"crop_layers({length}, {start}, {end}) with layer cache "
                                                       f"lengths {lengths}",
    "forward": lambda ids, cached: f"forward_new({list(ids)}) with {cached} tokens cached",
}


def shown(call) -> str:
    words = CALL_WORDS.get(call[0])
    return words(*call[1:]) if words else f"{call[0]}{call[1:]}"


def check_calls(mine, theirs, case, before="", function="early_exit_generate"):
    check_call_by_call(function, mine, theirs, shown, case, lambda calls: before, on="")
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
    check_calls(model.calls, reference_model.calls, case, function="early_exit_draft")
    if not isinstance(got, tuple) or len(got) != 3:
        raise GradingFailure(f"early_exit_draft must return (drafts, q, states); it returned {got!r:.120}.\n{case}")
    if list(got[0]) != drafts or not all(type(x) is int for x in got[0]):
        raise GradingFailure(f"early_exit_draft drafted {got[0]!r}; expected {drafts} (plain ints).\n{case}")
    check_close("q", got[1], q, case)
    check_close("states", got[2], states, case + "\nstates: every row of every forward_layers(..., 0, exit_layer) "
                "output, in order (the first pass's pending rows included).", atol=1e-5)
    check_generator(generator, reference_generator.get_state(), "drafting", case)


def check_verify(factory, sequence, exit_layer, gamma, seed, temperature, what, prefill=True):
    held = "holding all but the newest token" if prefill else "holding nothing (a prompt)"
    case = (f"case: drafts from early_exit_draft(model, {sequence}, {exit_layer}, {gamma}, "
            f"torch.Generator().manual_seed({seed}), {temperature}), then early_exit_verify(model, sequence, drafts, "
            f"states, {exit_layer}, {temperature}) on {what}, {held} before the draft")
    twins = []
    for _ in range(2):
        model = prepared(factory, sequence, prefill)
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
    check_calls(model.calls, reference_model.calls, case, function="early_exit_verify")
    rows = f"\np: one row per draft and one more (row i after drafts[:i]): {len(drafts) + 1} rows, whatever the cache held"
    check_close("early_exit_verify's p", got, expected, case + rows, atol=1e-6)
    full = factory()
    target_rows = full.forward_new(sequence + drafts)[-(len(drafts) + 1):]
    check_close("early_exit_verify's p against the target's own forward_new", got,
                torch.softmax(target_rows.double(), -1) if temperature == 1.0 else expected, case, atol=1e-5)
    lengths = model.layer_cache_lengths
    if set(lengths) != {len(sequence) + len(drafts)}:
        raise GradingFailure(f"After verification every layer must hold sequence + drafts ({len(sequence) + len(drafts)} "
                             f"tokens); the layers hold {lengths}.\n{case}")


ROUND_COLUMNS = [Column("drafts", "<"), Column("crop")]
DECISION_COLUMNS = [Column("decision", "<"), Column("token"), Column("u"), Column("p/q")]  # accept when u < p/q


def check_generate(factory, prompt, max_new_tokens, exit_layer, gamma, seed, temperature, what):
    case = (f"case: early_exit_generate(model, {list(prompt)[:12]}, max_new_tokens={max_new_tokens}, "
            f"exit_layer={exit_layer}, gamma={gamma}, torch.Generator().manual_seed({seed}), "
            f"temperature={temperature}) on {what}")
    expected = reference_generate(factory(), prompt, max_new_tokens, exit_layer, gamma, seed, temperature)
    model = factory()
    model.forward_new(prompt[:1])  # a stale cache: the contract starts with reset()
    generator = torch.Generator().manual_seed(seed)
    recorder, start = RecordingLayerModel(model, generator), generator.get_state()
    before = model.layer_computations
    try:
        got = call_learner(learner("early_exit_generate"), recorder, list(prompt), max_new_tokens, exit_layer, gamma,
                           generator, temperature, case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        raise lead_with_difference(failure, "early_exit_generate", call_mismatch(
            [c for c in recorder.calls if c[0] != "reset"], [c for c in expected.calls if c[0] != "reset"], shown)) from None
    mine = list(getattr(got, "tokens", []))
    first = next((i for i, (a, b) in enumerate(zip(mine, expected.tokens)) if a != b), None)
    table = render_rounds(ROUND_COLUMNS, DECISION_COLUMNS, expected.rounds, yours=[str(t) for t in mine],
                          first=first).text
    rounds = f"The reference's rounds:\n{table}\n"
    if mine != expected.tokens or not torch.equal(generator.get_state(), expected.generator_state):
        lead_with_round_event("early_exit_generate", *(entries([r], CALL_KINDS, verifies, closes)
                                                       for r in (expected.recorder, recorder)),
                              start, (expected.generator_state, generator.get_state()),
                              (expected.tokens, expected.accepted_per_pass, mine), closes, rounds + case)
    check_calls([c for c in compared(recorder.calls) if c[0] != "reset"],  # the crop rule: no-op crops not compared
                [c for c in compared(expected.calls) if c[0] != "reset"], case, rounds)
    if mine != expected.tokens or not all(type(t) is int for t in mine):
        raise GradingFailure(f"early_exit_generate's tokens differ from the reference's (plain ints expected):\n"
                             f"{rounds}{case}")
    check_counters(got, expected, case)
    spent = model.layer_computations - before
    if spent != expected.layer_computations:
        raise GradingFailure(f"The model counted {spent} layer computations; the contract makes "
                             f"{expected.layer_computations}.\n{case}")
    check_generator(generator, expected.generator_state, "early_exit_generate", case)
    return got, model
