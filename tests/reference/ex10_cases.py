"""Exercise 10-speculative-generate: the toy models of the suite and how one case is run and judged.

check_case runs the learner's decoder and the reference (tests/reference/ex10_reference.py) on
the same models and seed, wrapped in RecordingModel, and compares the tokens, every call each
model received, the statistics and the generator's state, naming the first round that differs.
"""

from __future__ import annotations

import torch

from speckata.decoding.baseline import SpeculativeResult
from speckata.grading import GradingFailure, call_learner
from speckata.grading.events import earliest
from speckata.models.markov import MarkovModel, blend, random_markov_model
from tests.reference.ex10_calls import learner_calls
from tests.reference.ex10_events import call_event, draw_event, recorders, tokens_event
from tests.reference.ex10_reference import reference_generate
from tests.reference.ex10_report import mismatch_report, raised_report

# The worked example's chains (order 1, row = previous token).
EXAMPLE_TARGET = [[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]
EXAMPLE_DRAFT = [[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]


def chains(name: str) -> tuple[MarkovModel, MarkovModel]:
    """Fresh (target, draft) toy models."""
    if name == "example":
        return MarkovModel(EXAMPLE_TARGET), MarkovModel(EXAMPLE_DRAFT)
    if name == "far":  # order 2, a draft that disagrees often: many rejections
        return random_markov_model(4, 2, seed=11, sharpness=2.0), random_markov_model(4, 2, seed=12, sharpness=2.0)
    if name == "close":  # order 2, a draft near the target: long accepted runs
        target = random_markov_model(4, 2, seed=21, sharpness=2.0)
        return target, blend(target, random_markov_model(4, 2, seed=22, sharpness=2.0), 0.8)
    if name == "same":  # the draft IS the target: every draft is accepted
        return random_markov_model(5, 2, seed=31, sharpness=1.0), random_markov_model(5, 2, seed=31, sharpness=1.0)
    raise KeyError(name)


def describe(models: str, prompt, max_new_tokens, gamma, seed, temperature) -> str:
    return (f"The case: speculative_generate(target, draft, prompt_ids={list(prompt)}, max_new_tokens={max_new_tokens}, "
            f"gamma={gamma}, generator=torch.Generator().manual_seed({seed}), temperature={temperature})\n"
            f"  models: {models}")


def run_learner(function, target, draft, prompt, max_new_tokens, gamma, seed, temperature, case, reference_models=None):
    """The learner's result on recorded models; if their decoder raises, a report led by the first
    difference in what it did up to then (the exception is often its symptom)."""
    generator = torch.Generator().manual_seed(seed)
    start = generator.get_state()
    recorded_target, recorded_draft = recorders(target, draft, generator)
    try:
        result = call_learner(function, recorded_target, recorded_draft, list(prompt), max_new_tokens, gamma, generator,
                              temperature=temperature, case=case)
    except GradingFailure as failure:
        trace, reference = reference_run(reference_models or (target, draft), prompt, max_new_tokens, gamma, seed, temperature)
        calls = learner_calls(recorded_target, recorded_draft)
        draws = draw_event(reference, (recorded_target, recorded_draft), start, None, None)
        first = earliest(call_event(trace.calls, calls, complete=False),
                         draws if draws is not None and draws.order != float("inf") else None)
        raise raised_report(str(failure), trace, recorded_target, recorded_draft, first.headline if first else "").failure() from None
    return result, recorded_target, recorded_draft, generator


def reference_run(models, prompt, max_new_tokens, gamma, seed, temperature):
    """The reference's trace, and its recorders (with the generator: the states its draws leave)."""
    generator = torch.Generator().manual_seed(seed)
    reference = recorders(*models, generator)
    return reference_generate(*reference, prompt, max_new_tokens, gamma, generator, temperature), reference


def draws_difference(reference: torch.Generator, learner: torch.Generator) -> str:
    """How many more or fewer numbers the learner drew than the reference, if within 64."""
    if torch.equal(reference.get_state(), learner.get_state()):
        return ""
    for ahead, behind in ((reference, learner), (learner, reference)):
        probe = torch.Generator()
        probe.set_state(ahead.get_state())
        for count in range(1, 65):
            torch.rand((), dtype=torch.float64, generator=probe)
            if torch.equal(probe.get_state(), behind.get_state()):
                return f"{count} {'more' if ahead is reference else 'fewer'}"
    return "a different number of"


def check_result_shape(result, max_new_tokens: int) -> None:
    if not isinstance(result, SpeculativeResult):
        raise GradingFailure(f"speculative_generate must return a SpeculativeResult (speckata.decoding.baseline); "
                             f"it returned {type(result).__name__}: {result!r}"[:600])
    if not isinstance(result.tokens, list) or any(type(t) is not int for t in result.tokens):
        kinds = sorted({type(t).__name__ for t in result.tokens}) if isinstance(result.tokens, (list, tuple)) else type(result.tokens).__name__
        raise GradingFailure(f"result.tokens must be a list of plain Python ints; it holds {kinds}. Use int(token).")
    if len(result.tokens) != max_new_tokens:
        raise GradingFailure(f"result.tokens holds {len(result.tokens)} tokens; max_new_tokens = {max_new_tokens} asks for "
                             f"exactly that many (k = min(gamma, remaining - 1) keeps every round inside the budget).")


def token_round(trace, index: int) -> tuple[int, str]:
    """The round (from 1) that emits new token `index` in the reference, and what that token is."""
    emitted = 0
    for number, round_ in enumerate(trace.rounds, start=1):
        for decision in round_.decisions:
            if decision.kind != "reject":
                if emitted == index:
                    return number, WHAT_IS_EMITTED[decision.kind]
                emitted += 1
    return len(trace.rounds), "past the end"


WHAT_IS_EMITTED = {"accept": "a kept draft", "replacement": "the replacement of a rejected draft",
                   "bonus": "the bonus token, after every draft was kept"}


def check_case(function, models: str, target, draft, prompt, max_new_tokens, gamma, seed, temperature=1.0, reference_models=None):
    """Run the learner and the reference on the same models and seed; compare everything."""
    case = describe(models, prompt, max_new_tokens, gamma, seed, temperature)
    result, rec_target, rec_draft, learner_generator = run_learner(function, target, draft, prompt, max_new_tokens, gamma,
                                                                   seed, temperature, case, reference_models)
    check_result_shape(result, max_new_tokens)
    trace, reference = reference_run(reference_models or (target, draft), prompt, max_new_tokens, gamma, seed, temperature)
    reference_final, start = reference[0].generator.get_state(), torch.Generator().manual_seed(seed).get_state()

    def fail(headline):
        raise mismatch_report(headline, case, trace, result.tokens, rec_target, rec_draft).failure()

    calls = learner_calls(rec_target, rec_draft)
    found = [call_event(trace.calls, calls), tokens_event(trace.tokens, result.tokens, lambda index: token_round(trace, index))]
    if any(found) or not torch.equal(reference_final, learner_generator.get_state()):  # the draws counted only then
        found.append(draw_event(reference, (rec_target, rec_draft), start, reference_final, learner_generator.get_state()))
    first = earliest(*found)
    if first is not None:
        fail(f"speculative_generate {first.headline}; everything before was right.")
    stats = {"accepted_per_pass": trace.accepted_per_pass, "drafted_per_pass": trace.drafted_per_pass,
             "target_passes": len(trace.target_feeds), "draft_passes": len(trace.draft_feeds)}
    reference_generator = torch.Generator()
    reference_generator.set_state(reference_final)
    check_stats_and_draws("speculative_generate", result, stats, (reference_generator, learner_generator), fail,
                          "The tokens are right", " (one per draft sample, one per tested draft, one for the replacement "
                          "or bonus)")
    return result, rec_target, rec_draft


def check_stats_and_draws(function: str, result, stats: dict, generators, fail, right: str, draws: str = "") -> None:
    """What is left once the tokens are right (exercises 10, 25 and 27): each of ``stats`` (name: the
    reference's value) read from ``result``, then the count of draws of the (reference, learner)
    ``generators``; ``right`` says what was right, ``draws`` the contract's draws, each failure goes to ``fail``."""
    for name, expected in stats.items():
        got = getattr(result, name)
        if got != expected:
            fail(f"{right} but result.{name} is {got!r}; expected {expected!r}.")
    drawn = draws_difference(*generators)
    if drawn:
        fail(f"The tokens are right but {function} drew {drawn} random numbers than the contract{draws}.")
