"""The first line names the first differing event on exercises that replay a trace (10, 12, 20-23, 27-30).

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
import torch

from speckata.grading.events import draw_difference, marks, round_draw_difference
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
    "30-eagle2-tree": ("tests.test_30_eagle2_tree", "fn", "named"),
}
SUITE = {"21-medusa-heads": "tests.test_21_medusa_heads", "23-early-exit": "tests.test_23_early_exit"}
FUNCTION = {"10-speculative-generate": "speculative_generate", "20-tree-verification": "tree_speculative_generate"}


@pytest.fixture(autouse=True)
def exercise_imports():
    """Later exercises' solutions import earlier ones from the graded folder, as a learner's do."""
    install_finder()


def run_wrong(tmp_path, monkeypatch, exercise_id, edits, test, *args, whole=False):
    """The suite's ``test`` on the solution with ``edits``: its failure's first line (``whole``: all of it),
    or None when it passes."""
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
    text = str(failure_of(getattr(suite, test), *args))
    return text if whole else text.splitlines()[0]


# Wrong versions: (find, replace) edits of the solutions, each built from the line it changes ---------------

def drawn_twice(line: str, draw: str) -> tuple[str, str]:
    """``line`` with its ``draw`` made twice and the second kept: one random number too many."""
    return line, line.replace(draw, f"({draw}, {draw})[1]")


def inserted(line: str, added: str, before: str = "") -> tuple[str, str]:
    """``line`` with ``added`` put just before its ending ``before`` (at its very end by default)."""
    assert line.endswith(before), (line, before)
    cut = len(line) - len(before)
    return line, line[:cut] + added + line[cut:]


def crop_keeps_newest(model: str) -> tuple[str, str]:
    """The round's crop keeps the newest token, which the next round feeds again."""
    return f"            {model}.crop(len(sequence) - 1)", f"            {model}.crop(len(sequence))"


UNIFORM = "draw_uniform(generator)"
TWO_UNIFORMS_10 = drawn_twice("        if draw_uniform(generator) < float(p[i, x] / q[i][x]):", UNIFORM)
RESIDUAL_FROM_P_10 = RESIDUAL_FROM_P_23 = ("        residual = torch.clamp(p[i] - q[i], min=0.0)\n",
                                           "        residual = p[i].clone()\n")
TWO_UNIFORMS_12 = drawn_twice("        if draw_uniform(generator) < float(p[i, y]):", UNIFORM)
ONE_MORE_UNIFORM_27 = ("drafted = sample_rows(probs, torch.rand((len(active),), generator=generator, dtype=torch.float64))",
                       "drafted = sample_rows(probs, torch.rand((len(active) + 1,), generator=generator, "
                       "dtype=torch.float64)[: len(active)])")
TWO_UNIFORMS_23 = drawn_twice("        if draw_uniform(generator) < float(p[i, x] / q[i, x]):", UNIFORM)
TWO_UNIFORMS_20 = drawn_twice("        if draw_uniform(generator) < float(target[x] / q[x]):", UNIFORM)
BONUS_TWICE_29 = drawn_twice("    return path, sample_token(p[node + 1], generator)  #",
                             "sample_token(p[node + 1], generator)")
CROP_KEEPS_NEWEST_12 = CROP_KEEPS_NEWEST_22 = CROP_KEEPS_NEWEST_28 = crop_keeps_newest("target")
CROP_KEEPS_NEWEST_23 = crop_keeps_newest("model")
CROP_COUNTS_ACCEPTED_TWICE_21 = inserted("        target.crop(len(sequence))  #", " + accepted", before=")  #")
KEEP_ONE_MORE_20 = inserted("        target.keep_path(list(range(m)) + [m + node for node in path])",
                            " + [m + len(path)]", before=")")
DRAFT_KEEPS_ONE_NODE_20 = inserted("        draft.keep_path([node for node in path if node < fed])", "[:1]", before=")")
KEEP_PATH_29 = "        target.keep_path([0] + [1 + node for node in path])"
KEEP_ONE_MORE_29 = inserted(KEEP_PATH_29, " + [1 + len(path)]", before=")")
TARGET_KEEPS_ONE_NODE_29 = inserted(KEEP_PATH_29, "[:1]", before=")")
# The same two lines stand in exercise 28's solution.
ONE_MORE_SAMPLE_22 = inserted("        p = next_token_probabilities(logits, temperature)\n",
                              "        sample_token(p[0], generator)\n")
TOKENS_REVERSED_22 = inserted("        result.tokens += tokens\n", "[::-1]", before="\n")
ONE_MORE_SAMPLE_30 = inserted("        probs = next_token_probabilities(logits, temperature)\n",
                              "        sample_token(probs[0], generator)\n")
TOKENS_REVERSED_30 = inserted("        result.tokens += new\n", "[::-1]", before="\n")
RIGHT = "; everything before was right."
RAISED = "; everything before was right. Then it raised:"

# name: (exercise, edit, the suite's test, the first line it must show)
FIRST_LINES = {
    # Item 1: a round's count of draws and a round's tokens, named before what they change later
    "10: two uniforms per tested draft are a round's draw count, by name": (
        "10-speculative-generate", TWO_UNIFORMS_10, "test_worked_example",
        "speculative_generate drew 7 uniforms in round 1 where the contract draws 5 uniforms" + RIGHT),
    "10: a rejection resampled from p is named by its round and its replacement": (
        "10-speculative-generate", RESIDUAL_FROM_P_10, "test_rejection_crops_both_caches_to_the_kept_sequence",
        "speculative_generate emitted another token than the contract's in round 1 (new token 0: the contract's is "
        "the replacement of a rejected draft)" + RIGHT),
    "12: two uniforms per tested token are a round's draw count, by name": (
        "12-cross-tokenizer", TWO_UNIFORMS_12, "test_toy_worked_case",
        "cross_tokenizer_generate drew 5 uniforms in round 1 where the contract draws 3 uniforms" + RIGHT),
    "20: two uniforms per tried child are a round's draw count, not the walk they change": (
        "20-tree-verification", TWO_UNIFORMS_20, "test_random_markov_cases_match_the_reference",
        "tree_speculative_generate drew 13 uniforms in round 1 where the contract draws 10 uniforms" + RIGHT),
    "23: two uniforms per tested draft are a round's draw count, by name": (
        "23-early-exit", TWO_UNIFORMS_23, "test_worked_example_generate",
        "early_exit_generate drew 7 uniforms in round 1 where the contract draws 6 uniforms" + RIGHT),
    "23: a rejection resampled from p is named by the round whose tokens differ": (
        "23-early-exit", RESIDUAL_FROM_P_23, "test_random_tiny_models_match_the_reference",
        "early_exit_generate emitted [4] in round 3; the contract emits [0] there (0 drafts accepted, then one more "
        "token)" + RIGHT),
    "27: one uniform too many per draft step is a round's draw count, by name": (
        "27-adaptive-draft-length", ONE_MORE_UNIFORM_27, "test_worked_example",
        "adaptive_speculative_generate drew 3 uniforms in round 1 where the contract draws 2 uniforms" + RIGHT),
    "29: a bonus token sampled twice is a round's draw count, by name": (
        "29-medusa-tree", BONUS_TWICE_29, "test_worked_example_decoding",
        "medusa_tree_generate drew 6 uniforms in round 1 where the contract draws 5 uniforms" + RIGHT),
    "20: a draft that keeps too few nodes is named by its decoder, its call and its round": (
        "20-tree-verification", DRAFT_KEEPS_ONE_NODE_20, "test_random_markov_cases_match_the_reference",
        "tree_speculative_generate made call 7 on the draft (tree/forward/keep_path/crop calls), keep_path([0], cache "
        "4), where the contract makes keep_path([0, 1], cache 4), in round 2:"),
    "29: a target that keeps too few nodes is named by its decoder and its round": (
        "29-medusa-tree", TARGET_KEEPS_ONE_NODE_29, "test_worked_example_decoding",
        "medusa_tree_generate's round 1 went otherwise than the contract's: expected keep_path([0, 1, 5]), got "
        "keep_path([0, 1]) on the target: the round's tokens are right, but the cache keeps other nodes than pending "
        "+ the accepted path."),
    "22: one sample too many per round is a round's draw count, by name": (
        "22-eagle-head", ONE_MORE_SAMPLE_22, "test_worked_example_decoding",
        "eagle_generate drew 12 uniforms in round 1 where the contract draws 11 uniforms" + RIGHT),
    "22: a round's tokens appended in the wrong order are named by the round": (
        "22-eagle-head", TOKENS_REVERSED_22, "test_worked_example_decoding",
        "eagle_generate emitted [74, 1, 70, 73] in round 1; the contract emits [73, 70, 1, 74] there (3 drafts "
        "accepted, then one more token)" + RIGHT),
    "28: one sample too many per round is a round's draw count, by name": (
        "28-eagle-head-cache", ONE_MORE_SAMPLE_22, "test_worked_example_decoding",
        "eagle_cached_generate drew 12 uniforms in round 1 where the contract draws 11 uniforms" + RIGHT),
    "28: a round's tokens appended in the wrong order are named by the round": (
        "28-eagle-head-cache", TOKENS_REVERSED_22, "test_worked_example_decoding",
        "eagle_cached_generate emitted [74, 1, 70, 73] in round 1; the contract emits [73, 70, 1, 74] there (3 "
        "drafts accepted, then one more token)" + RIGHT),
    "30: one sample too many per round is a round's draw count, by name": (
        "30-eagle2-tree", ONE_MORE_SAMPLE_30, "test_random_tiny_models_match_the_reference",
        "eagle2_generate drew 4 uniforms in round 1 where the contract draws 3 uniforms" + RIGHT),
    "30: a round's tokens appended in the wrong order are named by the round": (
        "30-eagle2-tree", TOKENS_REVERSED_30, "test_random_tiny_models_match_the_reference",
        "eagle2_generate emitted [0, 2] in round 3; the contract emits [2, 0] there (1 draft accepted, then one more "
        "token)" + RIGHT),
    # Item 2: a wrong crop or keep_path that makes a later round raise leads, the exception second
    "12: a crop that keeps the newest token leads before the exception": (
        "12-cross-tokenizer", CROP_KEEPS_NEWEST_12, "test_toy_worked_case",
        "cross_tokenizer_generate cropped the target's cache to 6 tokens in round 1, which keeps all 6, the newest "
        "token included; the contract crops it to 5 = len(sequence) - 1" + RAISED),
    "20: a keep_path with one node too many leads before the exception": (
        "20-tree-verification", KEEP_ONE_MORE_20, "test_worked_example",
        "tree_speculative_generate made call 1 on the target, keep_path([0, 2, 2], cache 3), where the contract "
        "makes keep_path([0, 2], cache 3)" + RAISED),
    "21: a crop that counts the accepted guesses twice leads before the exception": (
        "21-medusa-heads", CROP_COUNTS_ACCEPTED_TWICE_21, "test_worked_example_decoding",
        "medusa_generate made call 2, crop(24) with 25 tokens cached, where the contract makes crop(23) with 25 "
        "tokens cached" + RAISED),
    "22: a crop that keeps the newest token leads with the crop it leaves out": (
        "22-eagle-head", CROP_KEEPS_NEWEST_22, "test_worked_example_decoding",
        "eagle_generate made call 4, forward_new_hidden([73, 70, 1]) with 33 tokens cached, where the contract "
        "makes crop(32) with 33 tokens cached" + RAISED),
    "23: a crop that keeps the newest token leads before the exception": (
        "23-early-exit", CROP_KEEPS_NEWEST_23, "test_worked_example_generate",
        "early_exit_generate made call 11, crop(22) with 25 tokens in every layer, where the contract makes "
        "crop(21) with 25 tokens in every layer" + RAISED),
    "28: a crop that keeps the newest token leads with the crop it leaves out": (
        "28-eagle-head-cache", CROP_KEEPS_NEWEST_28, "test_worked_example_decoding",
        "eagle_cached_generate made call 4 on the target, forward_new_hidden([73, 70, 1]) with 33 tokens cached, "
        "where the contract makes crop(32) with 33 tokens cached" + RAISED),
    "29: a keep_path with one node too many leads before the exception": (
        "29-medusa-tree", KEEP_ONE_MORE_29, "test_worked_example_decoding",
        "medusa_tree_generate made call 2 on the target, keep_path([0, 1, 5, 3], cache 29), where the contract "
        "makes keep_path([0, 1, 5], cache 29)" + RAISED),
}


def check_first_line(tmp_path, monkeypatch, exercise_id, edit, test, expected):
    """One row of a FIRST_LINES table: the wrong version's first line is ``expected``."""
    line = run_wrong(tmp_path, monkeypatch, exercise_id, [edit], test)
    assert line == expected, line


@pytest.mark.parametrize("name", list(FIRST_LINES))
def test_the_first_line_names_the_function_and_the_step_that_differ(tmp_path, monkeypatch, name):
    check_first_line(tmp_path, monkeypatch, *FIRST_LINES[name])


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


# The draw count of a round, not which of its calls the draws fall between ------------------------------

def states_after(*counts):
    """A generator's state at the start and after each batch of ``counts`` float64 uniforms."""
    generator = torch.Generator().manual_seed(5)
    states = [generator.get_state()]
    for count in counts:
        torch.rand((count,), dtype=torch.float64, generator=generator)
        states.append(generator.get_state())
    return states


def test_a_rounds_draws_moved_across_one_of_its_calls_are_no_difference_but_another_count_is():
    start, two, three = states_after(2, 1)  # the contract: 2 uniforms, a call, 1 more, then round 2
    contract = ([(1, start), (1, two), (2, three)], three)
    moved = ([(1, start), (1, three), (2, three)], three)  # all 3 before round 1's second call
    assert draw_difference(marks(*contract, start), marks(*moved, start), start) is not None
    assert round_draw_difference(contract, moved, start, [0, 1, 2]) is None
    four = states_after(4)[1]
    one_more = ([(1, start), (1, two), (2, four)], four)
    difference = round_draw_difference(contract, one_more, start, [0, 1, 2])
    assert difference.headline == "drew 4 uniforms in round 1 where the contract draws 3 uniforms", difference
    assert (difference.round, difference.order) == (1, 1.5), difference
