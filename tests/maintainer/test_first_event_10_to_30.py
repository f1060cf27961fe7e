"""The first line names the first differing event on exercises that replay a trace (10, 12, 20-23, 27-29).

Wrong versions of our own, each an edited copy of the solution (test_diagnostics_14_to_17.edited_solution),
run through the suite's own test in-process. The first line of the failure must name the function and
the step that differ: a round's count of uniforms (not the tokens or the crop they later change), the
round whose tokens differ, the wrong crop or keep_path that made a later round raise (not the
exception). A crop that changes nothing, added or left out, must pass (speckata.grading.events, the
crop rule). tests/maintainer/test_first_event.py holds exercise 25's and 27's first versions.
"""

from __future__ import annotations

import importlib

import pytest

from speckata.grading.learner_code import install_finder
from tests.maintainer.test_diagnostics_14_to_17 import edited_solution, failure_of

# Where each suite asks for the learner's function: (module, attribute, how the attribute is called).
LEARNER = {
    "10-speculative-generate": ("tests.test_10_speculative_generate", "speculative_generate", "plain"),
    "12-cross-tokenizer": ("tests.test_12_cross_tokenizer", "learner", "named"),
    "20-tree-verification": ("tests.test_20_tree_verification", "tree_speculative_generate", "plain"),
    "21-medusa-heads": ("tests.reference.ex21_cases", "learner_function", "exercise"),
    "22-eagle-head": ("tests.test_22_eagle_head", "fn", "named"),
    "23-early-exit": ("tests.reference.ex23_checks", "learner", "named"),
    "27-adaptive-draft-length": ("tests.test_27_adaptive_draft_length", "learner_function", "exercise"),
    "28-eagle-head-cache": ("tests.test_28_eagle_head_cache", "fn", "named"),
    "29-medusa-tree": ("tests.test_29_medusa_tree", "fn", "named"),
}
SUITE = {"21-medusa-heads": "tests.test_21_medusa_heads", "23-early-exit": "tests.test_23_early_exit"}
FUNCTION = {"10-speculative-generate": "speculative_generate", "20-tree-verification": "tree_speculative_generate"}


@pytest.fixture(autouse=True)
def exercise_imports():
    """Later exercises' solutions import earlier ones from the graded folder, as a learner's do."""
    install_finder()


def run_wrong(tmp_path, monkeypatch, exercise_id, edits, test, *args):
    """The suite's ``test`` on the solution with ``edits``: its failure's first line, or None when it passes."""
    learner = edited_solution(tmp_path, exercise_id, *edits)
    module_name, attribute, style = LEARNER[exercise_id]
    getter = {"plain": lambda: getattr(learner, FUNCTION[exercise_id]),
              "named": lambda name: getattr(learner, name),
              "exercise": lambda exercise, name: getattr(learner, name)}[style]
    monkeypatch.setattr(importlib.import_module(module_name), attribute, getter)
    suite = importlib.import_module(SUITE.get(exercise_id, module_name))
    if test.startswith("passes:"):
        getattr(suite, test.removeprefix("passes:"))(*args)
        return None
    return str(failure_of(getattr(suite, test), *args)).splitlines()[0]


# Item 1: a round's count of draws and a round's tokens, named before what they change later ---------------

TWO_UNIFORMS_10 = ("        if draw_uniform(generator) < float(p[i, x] / q[i][x]):",
                   "        if (draw_uniform(generator), draw_uniform(generator))[1] < float(p[i, x] / q[i][x]):")
RESIDUAL_FROM_P_10 = ("        residual = torch.clamp(p[i] - q[i], min=0.0)\n", "        residual = p[i].clone()\n")
TWO_UNIFORMS_12 = ("        if draw_uniform(generator) < float(p[i, y]):",
                   "        if (draw_uniform(generator), draw_uniform(generator))[1] < float(p[i, y]):")
ONE_MORE_UNIFORM_27 = ("drafted = sample_rows(probs, torch.rand((len(active),), generator=generator, dtype=torch.float64))",
                       "drafted = sample_rows(probs, torch.rand((len(active) + 1,), generator=generator, "
                       "dtype=torch.float64)[: len(active)])")


def test_10_two_uniforms_per_tested_draft_is_a_round_draw_count_by_name(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "10-speculative-generate", [TWO_UNIFORMS_10], "test_worked_example")
    assert line == ("speculative_generate drew 7 uniforms in round 1 where the contract draws 5 uniforms; "
                    "everything before was right."), line


def test_10_a_rejection_resampled_from_p_is_named_by_the_round_and_its_replacement(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "10-speculative-generate", [RESIDUAL_FROM_P_10],
                     "test_rejection_crops_both_caches_to_the_kept_sequence")
    assert line == ("speculative_generate emitted another token than the contract's in round 1 (new token 0: the "
                    "contract's is the replacement of a rejected draft); everything before was right."), line


def test_12_two_uniforms_per_tested_token_is_a_round_draw_count_by_name(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "12-cross-tokenizer", [TWO_UNIFORMS_12], "test_toy_worked_case")
    assert line == ("cross_tokenizer_generate drew 5 uniforms in round 1 where the contract draws 3 uniforms; "
                    "everything before was right."), line


def test_27_one_uniform_too_many_per_draft_step_is_a_draw_count_by_name(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "27-adaptive-draft-length", [ONE_MORE_UNIFORM_27], "test_worked_example")
    assert line == ("adaptive_speculative_generate drew 3 uniforms in round 1 where the contract draws 2 uniforms; "
                    "everything before was right."), line


# Item 2: a wrong crop or keep_path that makes a later round raise leads, the exception second ------------

CROP_KEEPS_NEWEST_12 = ("            target.crop(len(sequence) - 1)", "            target.crop(len(sequence))")
KEEP_ONE_MORE_20 = ("        target.keep_path(list(range(m)) + [m + node for node in path])",
                    "        target.keep_path(list(range(m)) + [m + node for node in path] + [m + len(path)])")
CROP_COUNTS_ACCEPTED_TWICE_21 = ("        target.crop(len(sequence))  #", "        target.crop(len(sequence) + accepted)  #")
CROP_KEEPS_NEWEST_22 = ("            target.crop(len(sequence) - 1)", "            target.crop(len(sequence))")
CROP_KEEPS_NEWEST_23 = ("            model.crop(len(sequence) - 1)", "            model.crop(len(sequence))")
CROP_KEEPS_NEWEST_28 = ("            target.crop(len(sequence) - 1)", "            target.crop(len(sequence))")
KEEP_ONE_MORE_29 = ("        target.keep_path([0] + [1 + node for node in path])",
                    "        target.keep_path([0] + [1 + node for node in path] + [1 + len(path)])")
RAISED = "; everything before was right. Then it raised:"


def test_12_a_crop_that_keeps_the_newest_token_leads_before_the_exception(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "12-cross-tokenizer", [CROP_KEEPS_NEWEST_12], "test_toy_worked_case")
    assert line == ("cross_tokenizer_generate cropped the target's cache to 6 tokens in round 1, which keeps all 6, "
                    "the newest token included; the contract crops it to 5 = len(sequence) - 1" + RAISED), line


def test_20_a_keep_path_with_one_node_too_many_leads_before_the_exception(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "20-tree-verification", [KEEP_ONE_MORE_20], "test_worked_example")
    assert line == ("tree_speculative_generate made call 1 on the target, keep_path([0, 2, 2], cache 3), where the "
                    "contract makes keep_path([0, 2], cache 3)" + RAISED), line


def test_21_a_crop_that_counts_the_accepted_guesses_twice_leads_before_the_exception(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "21-medusa-heads", [CROP_COUNTS_ACCEPTED_TWICE_21],
                     "test_worked_example_decoding")
    assert line == ("medusa_generate made call 2, crop(24) with 25 tokens cached, where the contract makes crop(23) "
                    "with 25 tokens cached" + RAISED), line


def test_22_a_crop_that_keeps_the_newest_token_leads_with_the_missing_crop(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "22-eagle-head", [CROP_KEEPS_NEWEST_22], "test_worked_example_decoding")
    assert line == ("eagle_generate made call 4, forward_new_hidden([73, 70, 1]) with 33 tokens cached, where the "
                    "contract makes crop(32) with 33 tokens cached" + RAISED), line


def test_23_a_crop_that_keeps_the_newest_token_leads_before_the_exception(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "23-early-exit", [CROP_KEEPS_NEWEST_23], "test_worked_example_generate")
    assert line == ("early_exit_generate made call 11, crop(22) with 25 tokens in every layer, where the contract "
                    "makes crop(21) with 25 tokens in every layer" + RAISED), line


def test_28_a_crop_that_keeps_the_newest_token_leads_with_the_missing_crop(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "28-eagle-head-cache", [CROP_KEEPS_NEWEST_28], "test_worked_example_decoding")
    assert line == ("eagle_cached_generate made call 4 on the target, forward_new_hidden([73, 70, 1]) with 33 tokens "
                    "cached, where the contract makes crop(32) with 33 tokens cached" + RAISED), line


def test_29_a_keep_path_with_one_node_too_many_leads_before_the_exception(tmp_path, monkeypatch):
    line = run_wrong(tmp_path, monkeypatch, "29-medusa-tree", [KEEP_ONE_MORE_29], "test_worked_example_decoding")
    assert line == ("medusa_tree_generate made call 2 on the target, keep_path([0, 1, 5, 3], cache 29), where the "
                    "contract makes keep_path([0, 1, 5], cache 29)" + RAISED), line


# Item 5: a crop that changes nothing is neither required nor refused ------------------------------------

HARMLESS = {
    "10 crops every round": ("10-speculative-generate", [(
        "            if model.cache_length > len(sequence) - 1:\n                model.crop(len(sequence) - 1)",
        "            model.crop(min(model.cache_length, len(sequence) - 1))")], "test_worked_example"),
    "12 crops both models every round": ("12-cross-tokenizer", [
        ("    if draft.cache_length > keep:\n        draft.crop(keep)", "    draft.crop(keep)"),
        ("        if target.cache_length > len(sequence) - 1:\n            target.crop(len(sequence) - 1)",
         "        target.crop(len(sequence) - 1)")], "test_toy_worked_case"),
    "20 crops the target to its own length": ("20-tree-verification", [(
        "        draft.keep_path([node for node in path if node < fed])",
        "        draft.keep_path([node for node in path if node < fed])\n        target.crop(target.cache_length)")],
        "test_worked_example"),
    "21 leaves out the crop that changes nothing": ("21-medusa-heads", [(
        "        target.crop(len(sequence))  #",
        "        if target.cache_length > len(sequence):\n            target.crop(len(sequence))  #")],
        "test_worked_example_decoding"),
    "23 crops every round": ("23-early-exit", [(
        "        if model.cache_length > len(sequence) - 1:  # every layer forgets the rejected drafts\n"
        "            model.crop(len(sequence) - 1)", "        model.crop(len(sequence) - 1)")],
        "test_worked_example_generate"),
    "28 crops the head and the target every round": ("28-eagle-head-cache", [
        ("        if head.cache_length > len(features):\n            head.crop(len(features))",
         "        head.crop(min(head.cache_length, len(features)))"),
        ("        if target.cache_length > len(sequence) - 1:\n            target.crop(len(sequence) - 1)",
         "        target.crop(len(sequence) - 1)")], "test_worked_example_decoding"),
}


@pytest.mark.parametrize("name", sorted(HARMLESS))
def test_a_crop_that_changes_nothing_passes(tmp_path, monkeypatch, name):
    exercise_id, edits, test = HARMLESS[name]
    assert run_wrong(tmp_path, monkeypatch, exercise_id, edits, f"passes:{test}") is None
