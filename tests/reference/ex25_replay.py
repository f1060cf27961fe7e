"""Exercises 25-ragged-batch and 27: one batched decoder case replayed, learner beside reference.

Both run on RecordingModels that also record the generator's state before each call, so that
speckata.grading.events can find the first differing event of any kind: a call (ex25_recorded),
a batch of draws, or a round's tokens. When the learner's decoder raises, what it did up to the
exception is compared with the reference's, and the first difference leads the failure.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from speckata.grading import GradingFailure, call_learner
from speckata.grading.events import Difference, draw_difference, earliest, lead_with_difference
from speckata.models.recording import RecordingModel
from tests.reference.ex25_recorded import as_difference, first_call_difference, learner_marks, learner_rounds, tokens_difference
from tests.reference.ex25_report import call_headline

@dataclass
class Replay:
    result: object  # what the learner's decoder returned
    trace: object  # the reference's trace
    call_difference: tuple | None  # ex25_recorded.first_call_difference's
    first: Difference | None  # the first differing event of any kind
    reference_generator: torch.Generator
    learner_generator: torch.Generator
    rec_target: RecordingModel  # the learner's recorded models
    rec_draft: RecordingModel


def reference_run(run_reference, target, draft, generator):
    """The reference's trace and the marks of its draws, run on recorders of the same models."""
    start = generator.get_state()
    ref_target, ref_draft = RecordingModel(target, generator), RecordingModel(draft, generator)
    trace = run_reference(ref_target, ref_draft, generator)
    return trace, learner_marks(ref_target, ref_draft, start, generator.get_state())


def replay(name: str, function, run_reference, target, draft, prompts, seed, case: str, *args, **kwargs) -> Replay:
    """Run ``function(target, draft, prompts, *args, generator, **kwargs)`` and ``run_reference(target,
    draft, generator)`` on the same models and seed; compare their runs event by event."""
    learner_generator, reference_generator = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    start = learner_generator.get_state()
    rec_target, rec_draft = RecordingModel(target, learner_generator), RecordingModel(draft, learner_generator)
    try:
        result = call_learner(function, rec_target, rec_draft, [list(p) for p in prompts], *args, learner_generator,
                              case=case, **kwargs)
    except GradingFailure as failure:
        trace, expected_marks = reference_run(run_reference, target, draft, reference_generator)
        calls = first_call_difference(trace.calls, learner_rounds(rec_target, rec_draft), complete=False)
        draws = draw_difference(expected_marks, learner_marks(rec_target, rec_draft, start, None), start)
        first = earliest(as_difference(calls, call_headline(calls) if calls else ""),
                         draws if draws is not None and draws.order != float("inf") else None)
        raise lead_with_difference(failure, name, first) from None
    final = learner_generator.get_state()
    trace, expected_marks = reference_run(run_reference, target, draft, reference_generator)
    calls = first_call_difference(trace.calls, learner_rounds(rec_target, rec_draft))
    first = earliest(as_difference(calls, call_headline(calls) if calls else ""),
                     draw_difference(expected_marks, learner_marks(rec_target, rec_draft, start, final), start),
                     tokens_difference(trace, getattr(result, "tokens", None), prompts, rec_target, rec_draft))
    return Replay(result, trace, calls, first, reference_generator, learner_generator, rec_target, rec_draft)
