"""Exercise 25-ragged-batch: the toy models of the suite and how one case is run and judged.

check_case runs the learner's decoder and the reference (tests/reference/ex25_reference.py) on
the same models and seed, both wrapped in RecordingModel, and compares every row's tokens, every
call each model received (ids, row lengths, mask, positions, crops), the statistics and the
generator's state, naming the first call that differs.
"""

from __future__ import annotations

from speckata.decoding.baseline import BatchedSpeculativeResult
from speckata.grading import GradingFailure
from speckata.grading.events import TOKENS
from speckata.models.markov import MarkovModel, blend, random_markov_model
from tests.reference.ex10_cases import check_stats_and_draws
from tests.reference.ex25_reference import reference_batched_generate
from tests.reference.ex25_replay import replay
from tests.reference.ex25_report import mismatch_report

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
                             f"(speckata.decoding.baseline); it returned {type(result).__name__}: {result!r}"[:600])
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

    def run_reference(ref_target, ref_draft, generator):
        return reference_batched_generate(ref_target, ref_draft, prompts, max_new_tokens, gamma, generator, temperature)

    run = replay("batched_speculative_generate", function, run_reference, target, draft, prompts, seed, case,
                 max_new_tokens, gamma, temperature=temperature)
    check_result_shape(run.result, len(prompts), max_new_tokens)

    def fail(headline):
        raise mismatch_report(headline, case, run.trace, run.result.tokens, run.call_difference).failure()

    compare_with_trace("batched_speculative_generate", run, fail, " (read each row's verdict from "
                       "speculative_step_batched: its tokens[b, :num_accepted[b] + 1])")
    return run.result, run.rec_target, run.rec_draft


def compare_with_trace(name, run, fail, tokens_hint=""):
    """Exercises 25 and 27: the learner's calls, draws and tokens against the reference's trace (the
    first differing event of any kind, ex25_replay), then its counts, reported through ``fail``."""
    result, trace = run.result, run.trace
    if run.first is not None:
        hint = tokens_hint if run.first.phase == TOKENS else ""
        fail(f"{name} {run.first.headline}{hint}; everything before was right.")
    if result.tokens != trace.tokens:
        row = next(b for b, (mine, theirs) in enumerate(zip(result.tokens, trace.tokens)) if mine != theirs)
        fail(f"Every call was right, but row {row}'s tokens differ from the contract's{tokens_hint}.")
    stats = {"accepted_per_row": trace.accepted_per_row, "drafted_per_round": trace.drafted_per_round,
             "target_passes": len(trace.rounds), "draft_passes": sum(trace.drafted_per_round)}
    check_stats_and_draws(name, result, stats, (run.reference_generator, run.learner_generator), fail,
                          "The tokens and calls are right")
