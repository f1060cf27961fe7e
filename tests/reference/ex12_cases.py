"""Exercise 12-cross-tokenizer: how one decoding case is run and judged.

check_case runs the learner's cross_tokenizer_generate and the reference
(tests/reference/ex12_reference.py) on the same models, tokenizers and seed, wrapped in
RecordingModel, and compares the tokens, every call each model received, the statistics, the text
and the generator's state.
"""

from __future__ import annotations

import torch

from speckata.decoding.baseline import CrossTokenizerResult
from speckata.grading import GradingFailure, call_learner
from speckata.grading.events import earliest, lead_with_difference
from tests.reference.ex10_calls import learner_calls
from tests.reference.ex10_events import call_event, draw_event, recorders, tokens_event
from tests.reference.ex12_reference import reference_cross_generate
from tests.reference.ex12_report import mismatch_report


def describe(models, prompt, max_new_tokens, gamma, seed, temperature, window):
    return (f"The case: cross_tokenizer_generate(target, target_tokenizer, draft, draft_tokenizer, prompt={prompt!r}, "
            f"max_new_tokens={max_new_tokens}, gamma={gamma}, generator=torch.Generator().manual_seed({seed}), "
            f"temperature={temperature}, draft_window={window})\n  models: {models}")


def token_round(trace, index: int) -> tuple[int, str]:
    """The round (from 1, as the exercise counts them) that emits new token `index` in the reference."""
    emitted = 0
    for number, round_ in enumerate(trace.rounds, start=1):
        emitted += len(round_.emitted)
        if index < emitted:
            return number, ""
    return len(trace.rounds), ""


def reference_run(target, target_tokenizer, draft, draft_tokenizer, prompt, max_new_tokens, gamma, seed, temperature, window):
    """The reference's trace, its recorders (with the generator: the states its draws leave) and its generator."""
    generator = torch.Generator().manual_seed(seed)
    reference = recorders(target, draft, generator)
    trace = reference_cross_generate(reference[0], target_tokenizer, reference[1], draft_tokenizer, prompt, max_new_tokens,
                                     gamma, generator, temperature, window)
    return trace, reference, generator


def check_case(function, models, target, target_tokenizer, draft, draft_tokenizer, prompt, max_new_tokens, gamma, seed,
               temperature=1.0, window=64):
    case = describe(models, prompt, max_new_tokens, gamma, seed, temperature, window)
    mine = torch.Generator().manual_seed(seed)
    start = mine.get_state()
    rec_target, rec_draft = recorders(target, draft, mine)
    setting = (target, target_tokenizer, draft, draft_tokenizer, prompt, max_new_tokens, gamma, seed, temperature, window)
    try:
        result = call_learner(function, rec_target, target_tokenizer, rec_draft, draft_tokenizer, prompt,
                              max_new_tokens, gamma, mine, temperature=temperature, draft_window=window, case=case)
    except GradingFailure as failure:  # the first difference in what it did before raising leads
        trace, reference, _ = reference_run(*setting)
        draws = draw_event(reference, (rec_target, rec_draft), start, None, None, draft_crops_open_a_round=True)
        first = earliest(call_event(trace.calls, learner_calls(rec_target, rec_draft, True), True, complete=False),
                         draws if draws is not None and draws.order != float("inf") else None)
        raise lead_with_difference(failure, "cross_tokenizer_generate", first) from None
    if not isinstance(result, CrossTokenizerResult):
        raise GradingFailure(f"cross_tokenizer_generate must return a CrossTokenizerResult; got {type(result).__name__}")
    trace, reference, theirs = reference_run(*setting)

    def fail(headline):
        raise mismatch_report(headline, case, trace, target_tokenizer.decode, result.tokens, rec_target, rec_draft).failure()

    calls = learner_calls(rec_target, rec_draft, draft_crops_open_a_round=True)
    found = [call_event(trace.calls, calls, draft_crops_open_a_round=True),
             tokens_event(trace.tokens, result.tokens, lambda index: token_round(trace, index))]
    if any(found) or not torch.equal(theirs.get_state(), mine.get_state()):  # the draws counted only then
        found.append(draw_event(reference, (rec_target, rec_draft), start, theirs.get_state(), mine.get_state(), True))
    first = earliest(*found)
    if first is not None:
        fail(f"cross_tokenizer_generate {first.headline}; everything before was right.")
    expected_stats = {"proposed_per_pass": trace.proposed_per_pass, "accepted_per_pass": trace.accepted_per_pass,
                      "target_passes": len(trace.target_feeds), "draft_passes": len(trace.draft_feeds),
                      "text": target_tokenizer.decode(trace.tokens)}
    for name, expected in expected_stats.items():
        if getattr(result, name) != expected:
            fail(f"The tokens are right but result.{name} is {getattr(result, name)!r}; expected {expected!r}.")
    if not torch.equal(mine.get_state(), theirs.get_state()):
        fail("The tokens are right but the generator was used differently: drafting draws nothing; verifying draws one "
             "uniform per tested token and one sample for the other token or the bonus.")
    return result, rec_target, rec_draft
