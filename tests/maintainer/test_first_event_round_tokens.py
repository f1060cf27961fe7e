"""A round's tokens, named first on exercises 20, 21 and 29 (issue 39, item 1).

Wrong versions of our own, each an edited copy of the solution, run through the suite's own test
in-process (test_first_event_10_to_30.run_wrong). Each appends other tokens in a round than the
contract's while that round's calls and draws stay right: the first line must name the function,
the round and both rounds' tokens (tests/reference/round_events.tokens_difference), not the next
round's call the wrong token changes. A harmless variant of each (the same tokens by another
route) must still be solved.
"""

from __future__ import annotations

import pytest

from speckata.grading.learner_code import install_finder
from tests.maintainer.test_first_event_10_to_30 import RIGHT, check_first_line, run_wrong
from tests.reference.round_events import tokens_difference


@pytest.fixture(autouse=True)
def exercise_imports():
    """Later exercises' solutions import earlier ones from the graded folder, as a learner's do."""
    install_finder()


# Wrong versions: (find, replace) edits of the solutions ---------------------------------------------------

# 20: the tokens of the first nodes in the tree's order, not of the accepted path's nodes.
FIRST_NODES_20 = ("        new = [tokens[node] for node in path] + [extra]",
                  "        new = [tokens[index] for index in range(len(path))] + [extra]")
# 20: the bonus token after a leaf sampled from its parent's row of p, not the leaf's.
BONUS_FROM_PARENT_20 = ("    return path, sample_token(p[node], generator)  # a leaf was accepted: the bonus token",
                        "    return path, sample_token(p[path[-2] if len(path) > 1 else -1], generator)  # a leaf was "
                        "accepted: the bonus token")
# 21: the next round's token read from the row before the accepted guesses' (a row too early).
NEXT_TOKEN_ROW_TOO_EARLY_21 = ("        last_hidden, last_logits = hidden[accepted], logits[accepted]",
                               "        last_hidden, last_logits = hidden[accepted], logits[max(accepted - 1, 0)]")
# 21: one guess too many in the output (the cache is cropped right, the calls stay right).
ONE_GUESS_TOO_MANY_21 = ("        result.tokens += guesses[:accepted]\n",
                         "        result.tokens += guesses[:accepted + 1]\n")
# 29: the tokens of the first nodes in the tree's order, not of the accepted path's nodes.
FIRST_NODES_29 = ("        new = [tokens[node] for node in path] + [token]",
                  "        new = [tokens[index] for index in range(len(path))] + [token]")
# 29: the bonus token after a leaf sampled from its parent's row of p (row node, not node + 1).
BONUS_FROM_PARENT_29 = ("    return path, sample_token(p[node + 1], generator)  #",
                        "    return path, sample_token(p[node], generator)  #")

# name: (exercise, edit, the suite's test, the first line it must show)
FIRST_LINES = {
    "20: the first nodes' tokens instead of the accepted path's, in the worked example": (
        "20-tree-verification", FIRST_NODES_20, "test_worked_example",
        "tree_speculative_generate emitted [1, 1] in round 1; the contract emits [2, 1] there (1 draft accepted, then one "
        "more token)" + RIGHT),
    "20: the first nodes' tokens instead of the accepted path's, two drafts deep": (
        "20-tree-verification", FIRST_NODES_20, "test_random_markov_cases_match_the_reference",
        "tree_speculative_generate emitted [0, 1, 0] in round 7; the contract emits [1, 1, 0] there (2 drafts accepted, "
        "then one more token)" + RIGHT),
    "20: the bonus token from the parent's row": (
        "20-tree-verification", BONUS_FROM_PARENT_20, "test_worked_example",
        "tree_speculative_generate emitted [2, 2] in round 1; the contract emits [2, 1] there (1 draft accepted, then one "
        "more token)" + RIGHT),
    "21: the next token from a row too early": (
        "21-medusa-heads", NEXT_TOKEN_ROW_TOO_EARLY_21, "test_worked_example_decoding",
        "medusa_generate emitted [73, 73] in round 1; the contract emits [73, 70] there (1 draft accepted, then one more "
        "token)" + RIGHT),
    "21: one guess too many in the output": (
        "21-medusa-heads", ONE_GUESS_TOO_MANY_21, "test_worked_example_decoding",
        "medusa_generate emitted [73, 1] in round 1; the contract emits [73, 70] there (1 draft accepted, then one more "
        "token)" + RIGHT),
    "29: the first nodes' tokens instead of the accepted path's": (
        "29-medusa-tree", FIRST_NODES_29, "test_worked_example_decoding",
        "medusa_tree_generate emitted [1, 70, 73] in round 4; the contract emits [1, 85, 73] there (2 drafts accepted, "
        "then one more token)" + RIGHT),
    "29: the bonus token from the parent's row": (
        "29-medusa-tree", BONUS_FROM_PARENT_29, "test_worked_example_decoding",
        "medusa_tree_generate emitted [73, 70, 66] in round 1; the contract emits [73, 70, 1] there (2 drafts accepted, "
        "then one more token)" + RIGHT),
}


@pytest.mark.parametrize("name", list(FIRST_LINES))
def test_the_first_line_names_the_round_whose_tokens_differ(tmp_path, monkeypatch, name):
    check_first_line(tmp_path, monkeypatch, *FIRST_LINES[name])


def test_the_lines_after_it_show_the_references_round(tmp_path, monkeypatch):
    """The suite's own account of the round the headline names follows it: 29's walk, 21's round."""
    lines = run_wrong(tmp_path, monkeypatch, "29-medusa-tree", [BONUS_FROM_PARENT_29], "test_worked_example_decoding",
                      whole=True).splitlines()
    assert lines[1:6] == [
        "  the reference's walk in round 1:",
        "      node -1, children [73, 70, 80], try 0: accept token 73 (u = 0.7078, ratio 1.0000)",
        "      node 0, children [1, 70], try 0: reject token 1 (u = 0.4594, ratio 0.0000)",
        "      node 0, children [1, 70], try 1: accept token 70 (u = 0.9207, ratio 1.0000)",
        "      node 4: no children, bonus token 1 sampled from its p"], lines
    lines = run_wrong(tmp_path, monkeypatch, "21-medusa-heads", [NEXT_TOKEN_ROW_TOO_EARLY_21],
                      "test_worked_example_decoding", whole=True).splitlines()
    assert lines[1:3] == ["The reference's rounds:", "    round 1: token 85, guesses [73, 1, 1], the target's choices "
                          "[73, 70, 66, 1], accepted 1, crop to 23"], lines


# Harmless variants: the same tokens by another route must still be solved ---------------------------------

HARMLESS = {
    "20 reads the path's tokens walking up from its last node": ("20-tree-verification", [(
        "        new = [tokens[node] for node in path] + [extra]",
        "        found, node = [], path[-1] if path else -1\n"
        "        while node != -1:\n"
        "            found.append(tokens[node])\n"
        "            node = shape.parents[node]\n"
        "        new = found[::-1] + [extra]")],
        ["test_worked_example", "test_random_markov_cases_match_the_reference"]),
    "21 emits the target's choices where they equal the accepted guesses": ("21-medusa-heads", [(
        "        result.tokens += guesses[:accepted]\n", "        result.tokens += predicted[:accepted]\n")],
        ["test_worked_example_decoding", "test_random_tiny_models_match_the_reference"]),
    "29 reads the path's tokens off the heads' rankings by each node's rank path": ("29-medusa-tree", [(
        "        new = [tokens[node] for node in path] + [token]",
        "        new = [int(rankings[len(shape.paths[node]) - 1, shape.paths[node][-1]]) for node in path] + [token]")],
        ["test_worked_example_decoding", "test_random_tiny_models_match_the_reference"]),
}


@pytest.mark.parametrize("name", sorted(HARMLESS))
def test_the_same_tokens_by_another_route_are_solved(tmp_path, monkeypatch, name):
    exercise_id, edits, tests = HARMLESS[name]
    for test in tests:
        assert run_wrong(tmp_path, monkeypatch, exercise_id, edits, f"passes:{test}") is None



# A token left out or added, the rest the contract's one place off: named as such, not as the round's
# slice (which would show the next round's tokens). The comparison itself, on tokens of our own.

ROUNDS = ([5, 6, 7, 8, 9, 10], [1, 2, 1])  # rounds [5, 6], [7, 8, 9], [10]


@pytest.mark.parametrize("tokens, headline", [
    ([5, 6, 8, 9, 10], "left out the contract's token 7 at result.tokens[3], in round 2: the contract emits [7, 8, 9] "
                       "there (2 drafts accepted, then one more token); its tokens after that are the contract's, "
                       "one place early"),
    ([5, 6, 7, 3, 8, 9, 10], "added token 3 at result.tokens[4], in round 2: the contract emits [7, 8, 9] there (2 "
                             "drafts accepted, then one more token); its tokens after that are the contract's, one "
                             "place late"),
    ([5, 6, 7, 4, 9, 10], "emitted [7, 4, 9] in round 2; the contract emits [7, 8, 9] there (2 drafts accepted, then "
                          "one more token)"),
    ([5, 6, 7, 8], "emitted [7, 8] in round 2; the contract emits [7, 8, 9] there (2 drafts accepted, then one more "
                   "token)"),
], ids=["left out", "added", "replaced", "cut short"])
def test_a_token_left_out_or_added_is_named_as_such(tokens, headline):
    difference = tokens_difference(*ROUNDS, tokens, offset=1)
    assert (difference.round, difference.headline) == (2, headline)
