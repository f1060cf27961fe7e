"""The first line names the first differing EVENT (a call, a round's draws, a round's tokens), issue 39.

Each wrong version is an edited copy of the solution (test_diagnostics_14_to_17.edited_solution),
run through the suite's own test function in-process; the first line of its GradingFailure must
name the function and the step that differ, not a later symptom. speckata.grading.events holds the
comparison; tests/reference/ex25_replay.py runs it for exercises 25 and 27.
"""

from __future__ import annotations

from tests.maintainer.wrong_learners import edited_solution, failure_of

DRAW_25 = ("drafted = sample_rows(probs, torch.rand((len(active),), generator=generator, dtype=torch.float64))",
           "drafted = sample_rows(probs, torch.rand((len(sequences),), generator=generator, dtype=torch.float64)[: len(active)])")
DROP_REPLACEMENT_25 = ("emitted = verified.tokens[row, : accepted + 1].tolist()",
                       "emitted = verified.tokens[row, : accepted].tolist() or [int(verified.tokens[row, 0])]")
NO_DRAFT_CROP_25 = ("for model in (target, draft):  # each row", "for model in (target,):  # each row")
CROP_KEEPS_NEWEST_25 = ("model.crop_rows([min(held, len(sequence) - 1) for", "model.crop_rows([min(held, len(sequence)) for")
DRAW_27 = ("drafted = sample_rows(probs, torch.rand((len(active),), generator=generator, dtype=torch.float64))",
           "drafted = sample_rows(probs, torch.rand((len(sequences),), generator=generator, dtype=torch.float64)[: len(active)])")
DROP_REPLACEMENT_27 = ("emitted = verified.tokens[row, : accepted[row] + 1].tolist()",
                       "emitted = (verified.tokens[row, : accepted[row]].tolist() or verified.tokens[row, :1].tolist())")


def first_line_25(tmp_path, monkeypatch, edit, test, *args) -> str:
    from tests import test_25_ragged_batch as suite

    learner = edited_solution(tmp_path, "25-ragged-batch", edit)
    monkeypatch.setattr(suite, "batched_speculative_generate", lambda: learner.batched_speculative_generate)
    return str(failure_of(getattr(suite, test), *args)).splitlines()[0]


def first_line_27(tmp_path, monkeypatch, edit, test, *args) -> str:
    from tests import test_27_adaptive_draft_length as suite

    learner = edited_solution(tmp_path, "27-adaptive-draft-length", edit)
    monkeypatch.setattr(suite, "adaptive_speculative_generate", lambda: learner.adaptive_speculative_generate)
    return str(failure_of(getattr(suite, test), *args)).splitlines()[0]


def test_25_b_uniforms_instead_of_one_per_active_row_is_a_draw_count_by_name(tmp_path, monkeypatch):
    line = first_line_25(tmp_path, monkeypatch, DRAW_25, "test_rows_that_accept_different_counts_advance_and_crop_on_their_own", 3)
    assert line == ("batched_speculative_generate drew 4 uniforms in round 10 where the contract draws 3 uniforms; "
                    "everything before was right."), line


def test_25_a_round_that_appends_too_few_tokens_is_named_by_its_tokens_not_the_crop(tmp_path, monkeypatch):
    line = first_line_25(tmp_path, monkeypatch, DROP_REPLACEMENT_25, "test_worked_example")
    assert line.startswith("batched_speculative_generate emitted [0] for row 1 in round 1; the contract's row 1 emits "
                           "[0, 1] there"), line


def test_25_a_missing_crop_that_makes_a_later_round_raise_leads_with_the_crop(tmp_path, monkeypatch):
    line = first_line_25(tmp_path, monkeypatch, NO_DRAFT_CROP_25, "test_worked_example")
    assert line.startswith("batched_speculative_generate called the draft (its call 4, round 2) with forward_rows") and \
        line.endswith("the contract calls crop_rows([1, 3]); everything before was right. Then it raised:"), line


def test_25_a_crop_that_keeps_the_newest_token_leads_before_the_exception(tmp_path, monkeypatch):
    line = first_line_25(tmp_path, monkeypatch, CROP_KEEPS_NEWEST_25, "test_worked_example")
    assert line == ("batched_speculative_generate called the target (its call 3, round 1) with crop_rows([2, 4]); the "
                    "contract calls crop_rows([1, 3]); everything before was right. Then it raised:"), line


def test_27_b_uniforms_instead_of_one_per_active_row_is_a_draw_count_by_name(tmp_path, monkeypatch):
    line = first_line_27(tmp_path, monkeypatch, DRAW_27, "test_random_cases_with_the_rules_match_the_reference", "far")
    assert line.startswith("adaptive_speculative_generate drew ") and " uniforms in round " in line and \
        "where the contract draws" in line, line


def test_27_a_round_that_appends_too_few_tokens_is_named_by_its_tokens_not_the_crop(tmp_path, monkeypatch):
    line = first_line_27(tmp_path, monkeypatch, DROP_REPLACEMENT_27, "test_worked_example")
    assert line.startswith("adaptive_speculative_generate emitted [") and " in round 1; the contract's row " in line, line


# 19, 21, 22, 23: the crop rule: a crop that changes nothing is neither required nor refused ------------------

def test_22_a_crop_that_changes_nothing_passes(tmp_path, monkeypatch):
    from tests import test_22_eagle_head as suite

    learner = edited_solution(tmp_path, "22-eagle-head", ("        if target.cache_length > len(sequence) - 1:\n"
                                                          "            target.crop(len(sequence) - 1)\n",
                                                          "        target.crop(len(sequence) - 1)\n"))
    monkeypatch.setattr(suite, "fn", lambda name: getattr(learner, name))
    suite.test_worked_example_decoding()
