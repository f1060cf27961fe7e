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
from tests.reference.ex10_report import first_difference
from tests.reference.ex12_reference import reference_cross_generate
from tests.reference.ex12_report import mismatch_report


def describe(models, prompt, max_new_tokens, gamma, seed, temperature, window):
    return (f"The case: cross_tokenizer_generate(target, target_tokenizer, draft, draft_tokenizer, prompt={prompt!r}, "
            f"max_new_tokens={max_new_tokens}, gamma={gamma}, generator=torch.Generator().manual_seed({seed}), "
            f"temperature={temperature}, draft_window={window})\n  models: {models}")


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
        raise GradingFailure(mismatch_report(headline, case, trace, target_tokenizer.decode, result.tokens,
                                             rec_target.calls, rec_draft.calls))

    if rec_target.feeds != trace.target_feeds or rec_draft.feeds != trace.draft_feeds or result.tokens != trace.tokens:
        places = [(first_difference(trace.target_feeds, rec_target.feeds), "the target's calls"),
                  (first_difference(trace.draft_feeds, rec_draft.feeds), "the draft's calls"),
                  (first_difference(trace.tokens, result.tokens), "the tokens")]
        named = ", ".join(f"{what} (first at #{index + 1})" for index, what in places if index is not None)
        fail(f"cross_tokenizer_generate left the contract: these differ from the reference's: {named}.")
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
