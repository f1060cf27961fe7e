"""Exercise 28-eagle-head-cache: the suite's checks (tests/test_28_eagle_head_cache.py uses them).

Each compares a learner's call with the independent reference (tests/reference/ex28_reference.py):
the tensors within float tolerance, the drafts and tokens exactly, the draws by the generator's
state, the target's calls as exercise 22 makes them, and the head's work call by call through a
RecordingEagleHead (speckata.heads.eagle; the comparison is tests/reference/eagle_head_replay.py,
shared with exercise 30). A mismatch of the head's calls is explained at its cause: a layer run
over the whole sequence, a cache never cropped, rows of the head's own features kept, a row for
the last draft.
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure, call_learner
from speckata.grading.events import call_mismatch, compared, lead_with_difference
from speckata.heads.eagle import RecordingEagleHead
from tests.reference.eagle_head_replay import STALE_HEAD_ROWS, check_head_calls, head_call, stale_recorders
from tests.reference.ex22_cases import check_target_calls, check_tensor, shown
from tests.reference.ex28_reference import reference_cached_draft, reference_cached_generate
from tests.reference.result_tail import check_tokens_counters_and_draws
from tests.reference.round_events import lead_with_draws_or_tokens


def cause(want, have) -> str:
    """Why a learner's head call differs from the contract's, in the words of the exercise text."""
    if have is None:
        return "Your decoder stopped calling the head here."
    if have[0] == "layer":
        return "head.layer recomputes every row at every step: a step costs the whole sequence. Use head.forward_new."
    if want[0] == "reset":
        return "The head's cache still held another sequence's rows: reset it with the target (head.reset())."
    if want[0] == "crop" and have[0] == "crop" and have[1] > want[1]:
        return (f"crop({have[1]}) keeps {have[1] - want[1]} row(s) the head computed from its OWN predicted features "
                f"(the kept drafts'). Keep only the rows of the target's true features: crop({want[1]}); the next "
                f"round recomputes the kept tokens' rows from the target's features.")
    if want[0] == "crop":
        return ("After the round the head's cache was not cropped: the rows of the rejected drafts, and those of the "
                "kept drafts (computed from the head's own features), stayed. Crop it to len(features).")
    if have[0] == "new" and want[0] == "new" and have[2] == 0 and want[2] > 0:
        return (f"The cache held {want[2]} rows, yet {have[1]} rows were computed from row 0: the sequence was "
                f"recomputed. Compute only the rows the cache lacks, features[head.cache_length:].")
    if have[0] == "new" and want[0] != "new":
        return "A row was computed that no draft reads (the last draft's row feeds nothing)."
    return "Compare the call with the exercise text's steps."


def check_step(eagle_head_step, head, target, features, tokens, chunks, expected, what):
    recorder, done = RecordingEagleHead(head), 0
    recorder.reset()
    recorder.calls.clear()
    for size in chunks:
        case = f"case: {what}, rows {done}..{done + size - 1} of {features.shape[0]}, the cache holding {done}"
        got = call_learner(eagle_head_step, recorder, target, features[done: done + size], tokens[done: done + size],
                           case=case)
        check_head_calls(recorder.calls, [("new", size, done)], case, cause)
        recorder.calls.clear()
        check_tensor("eagle_head_step", got, expected[done: done + size], case + "\n(the reference recomputes the "
                     "whole sequence with head.layer; a cached step must give the same rows)", atol=1e-5)
        done += size
        if head.cache_length != done:
            raise GradingFailure(f"After eagle_head_step the head's cache holds {head.cache_length} rows; expected "
                                 f"{done}.\n{case}")


def check_cached_draft(eagle_cached_draft, target, head, features, tokens, gamma, seed, temperature, cached, what):
    """``head``'s cache must already hold ``cached`` rows of these features."""
    case = f"case: {what}, {features.shape[0]} features, the cache holding {cached} rows, gamma {gamma}, seed {seed}, " \
           f"temperature {temperature}"
    mine, theirs = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    drafts, q, wanted = reference_cached_draft(target, head, features, tokens, gamma, theirs, temperature, cached)
    recorder = RecordingEagleHead(head)
    got = call_learner(eagle_cached_draft, target, recorder, features, tokens, gamma, mine, temperature, case=case)
    if not isinstance(got, tuple) or len(got) != 2:
        raise GradingFailure(f"eagle_cached_draft must return (drafts, q); it returned {type(got).__name__}.\n{case}")
    if got[0] != drafts or not all(type(t) is int for t in got[0]):
        raise GradingFailure(f"eagle_cached_draft drafted {got[0]}; expected {drafts} (plain ints), exercise 22's "
                             f"drafts.\n{case}")
    check_tensor("eagle_cached_draft's q", got[1], q, case, atol=1e-5)
    check_head_calls(recorder.calls, wanted, case, cause)
    if not torch.equal(mine.get_state(), theirs.get_state()):
        raise GradingFailure(f"eagle_cached_draft drew another number of random numbers than the contract's {gamma}."
                             f"\n{case}")
    return got


def check_cached_run(generate, target, head, prompt, max_new_tokens, gamma, seed, temperature, what):
    case = f"case: {what}, prompt {list(prompt)[:12]}, max_new_tokens {max_new_tokens}, gamma {gamma}, seed {seed}, " \
           f"temperature {temperature}"
    theirs = torch.Generator().manual_seed(seed)
    expected = reference_cached_generate(target, head, list(prompt), max_new_tokens, gamma, theirs, temperature,
                                         stale=STALE_HEAD_ROWS)
    mine = torch.Generator().manual_seed(seed)
    model, recorder, start = stale_recorders(target, head, prompt, mine)
    wanted = [c for c in compared(expected.calls) if c[0] in ("hidden", "crop")]
    try:
        got = call_learner(generate, model, recorder, list(prompt), max_new_tokens, gamma, mine, temperature, case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        first = (call_mismatch([c for c in model.calls if c[0] in ("hidden", "forward", "crop")], wanted, shown, "target")
                 or call_mismatch(recorder.calls, expected.head_calls, head_call, "head"))
        raise lead_with_difference(failure, "eagle_cached_generate", first) from None
    lead_with_draws_or_tokens(got, model, expected, start, mine, case, "eagle_cached_generate")
    check_target_calls("eagle_cached_generate", model.calls, expected.calls, case, contract="exercise 22's contract")
    check_head_calls(recorder.calls, expected.head_calls, case, cause, expected.head_rounds)
    check_tokens_counters_and_draws("eagle_cached_generate", got, expected, mine, theirs, case,
                                    "per round k draft samples, the uniforms, one sample")
    return got, recorder
