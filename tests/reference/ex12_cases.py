"""Exercise 12-cross-tokenizer: how one decoding case is run and judged.

check_case runs the learner's cross_tokenizer_generate and the reference
(tests/reference/ex12_reference.py) on the same models, tokenizers and seed, wrapped in
RecordingModel, and compares the tokens, every call each model received, the statistics, the text
and the generator's state.
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure, call_learner
from speckata.models.decoding import CrossTokenizerResult
from speckata.models.recording import RecordingModel
from tests.reference.ex10_calls import first_call_difference, first_divergence, learner_calls
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


def check_case(function, models, target, target_tokenizer, draft, draft_tokenizer, prompt, max_new_tokens, gamma, seed,
               temperature=1.0, window=64):
    case = describe(models, prompt, max_new_tokens, gamma, seed, temperature, window)
    rec_target, rec_draft = RecordingModel(target), RecordingModel(draft)
    mine = torch.Generator().manual_seed(seed)
    result = call_learner(function, rec_target, target_tokenizer, rec_draft, draft_tokenizer, prompt,
                          max_new_tokens, gamma, mine, temperature=temperature, draft_window=window, case=case)
    if not isinstance(result, CrossTokenizerResult):
        raise GradingFailure(f"cross_tokenizer_generate must return a CrossTokenizerResult; got {type(result).__name__}")
    theirs = torch.Generator().manual_seed(seed)
    trace = reference_cross_generate(target, target_tokenizer, draft, draft_tokenizer, prompt, max_new_tokens, gamma, theirs,
                                     temperature, window)

    def fail(headline):
        raise mismatch_report(headline, case, trace, target_tokenizer.decode, result.tokens, rec_target, rec_draft).failure()

    calls = learner_calls(rec_target, rec_draft, draft_crops_open_a_round=True)
    if first_call_difference(trace.calls, calls) is not None or result.tokens != trace.tokens:
        fail(first_divergence("cross_tokenizer_generate", trace, result.tokens, calls, lambda index: token_round(trace, index)))
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
