"""Exercise 25-ragged-batch: the toy models of the suite and how one case is run and judged.

check_case runs the learner's decoder and the reference (tests/reference/ex25_reference.py) on
the same models and seed, both wrapped in RecordingModel, and compares every row's tokens, every
call each model received (ids, row lengths, mask, positions, crops), the statistics and the
generator's state, naming the first call that differs.
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure, call_learner
from speckata.models.decoding import BatchedSpeculativeResult
from speckata.models.markov import MarkovModel, blend, random_markov_model
from speckata.models.recording import RecordingModel
from tests.reference.ex10_cases import draws_difference
from tests.reference.ex25_recorded import first_call_difference, learner_rounds
from tests.reference.ex25_reference import reference_batched_generate
from tests.reference.ex25_report import call_headline, mismatch_report

EXAMPLE_TARGET = [[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]
EXAMPLE_DRAFT = [[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]


def chains(name: str) -> tuple[MarkovModel, MarkovModel]:
    """Fresh (target, draft) toy models."""
    if name == "example":
        return MarkovModel(EXAMPLE_TARGET), MarkovModel(EXAMPLE_DRAFT)
    if name == "far":  # order 2, a draft that disagrees often: rows accept very different counts
        return random_markov_model(4, 2, seed=11, sharpness=2.0), random_markov_model(4, 2, seed=12, sharpness=2.0)
    if name == "close":  # order 2, a draft near the target: long accepted runs
        target = random_markov_model(4, 2, seed=21, sharpness=2.0)
        return target, blend(target, random_markov_model(4, 2, seed=22, sharpness=2.0), 0.8)
    if name == "same":  # the draft IS the target: every draft is accepted
        return random_markov_model(5, 2, seed=31), random_markov_model(5, 2, seed=31)
    raise KeyError(name)


def describe(models: str, prompts, max_new_tokens, gamma, seed, temperature) -> str:
    return (f"The case: batched_speculative_generate(target, draft, prompts={[list(p) for p in prompts]}, "
            f"max_new_tokens={max_new_tokens}, gamma={gamma}, generator=torch.Generator().manual_seed({seed}), "
            f"temperature={temperature})\n  models: {models}")


def check_result_shape(result, batch: int, max_new_tokens: int) -> None:
    if not isinstance(result, BatchedSpeculativeResult):
        raise GradingFailure(f"batched_speculative_generate must return a BatchedSpeculativeResult "
                             f"(speckata.models.decoding); it returned {type(result).__name__}: {result!r}"[:600])
    tokens = result.tokens
    if not isinstance(tokens, list) or len(tokens) != batch or any(not isinstance(row, list) for row in tokens):
        raise GradingFailure(f"result.tokens must be a list of {batch} lists, one per prompt; got {tokens!r}"[:600])
    for b, row in enumerate(tokens):
        if any(type(t) is not int for t in row):
            raise GradingFailure(f"result.tokens[{b}] must hold plain Python ints; it holds "
                                 f"{sorted({type(t).__name__ for t in row})}. Use int(token) or .tolist().")
        if len(row) != max_new_tokens:
            raise GradingFailure(f"result.tokens[{b}] holds {len(row)} tokens; every row must hold exactly "
                                 f"max_new_tokens = {max_new_tokens} (a row that emits more keeps its first ones).")


def check_case(function, models: str, target, draft, prompts, max_new_tokens, gamma, seed, temperature=1.0):
    """Run the learner and the reference on the same models and seed; compare everything."""
    case = describe(models, prompts, max_new_tokens, gamma, seed, temperature)
    rec_target, rec_draft = RecordingModel(target), RecordingModel(draft)
    learner_generator = torch.Generator().manual_seed(seed)
    reference_generator = torch.Generator().manual_seed(seed)
    try:
        result = call_learner(function, rec_target, rec_draft, [list(p) for p in prompts], max_new_tokens, gamma,
                              learner_generator, temperature=temperature, case=case)
    except GradingFailure as failure:
        trace = reference_batched_generate(target, draft, prompts, max_new_tokens, gamma, reference_generator, temperature)
        difference = first_call_difference(trace.calls, learner_rounds(rec_target, rec_draft))
        if difference is None:
            raise
        raise GradingFailure(f"{failure}\n\nBefore it raised, batched_speculative_generate {call_headline(difference)}.") from None
    check_result_shape(result, len(prompts), max_new_tokens)
    trace = reference_batched_generate(target, draft, prompts, max_new_tokens, gamma, reference_generator, temperature)
    difference = first_call_difference(trace.calls, learner_rounds(rec_target, rec_draft))

    def fail(headline):
        raise mismatch_report(headline, case, trace, result.tokens, difference).failure()

    compare_with_trace("batched_speculative_generate", result, trace, difference, fail, reference_generator,
                       learner_generator, " (read each row's verdict from speculative_step_batched: its "
                                          "tokens[b, :num_accepted[b] + 1])")
    return result, rec_target, rec_draft


def compare_with_trace(name, result, trace, difference, fail, reference_generator, learner_generator, tokens_hint=""):
    """Exercises 25 and 27: the learner's calls, tokens, counts and draws against the reference's trace,
    the first difference reported through ``fail``."""
    if difference is not None:
        fail(f"{name} {call_headline(difference)}; everything before was right.")
    if result.tokens != trace.tokens:
        row = next(b for b, (mine, theirs) in enumerate(zip(result.tokens, trace.tokens)) if mine != theirs)
        fail(f"Every call was right, but row {row}'s tokens differ from the contract's{tokens_hint}.")
    stats = {"accepted_per_row": trace.accepted_per_row, "drafted_per_round": trace.drafted_per_round,
             "target_passes": len(trace.rounds), "draft_passes": sum(trace.drafted_per_round)}
    for field, expected in stats.items():
        got = getattr(result, field)
        if got != expected:
            fail(f"The tokens and calls are right but result.{field} is {got!r}; expected {expected!r}.")
    drawn = draws_difference(reference_generator, learner_generator)
    if drawn:
        fail(f"The tokens are right but {name} drew {drawn} random numbers than the contract.")
