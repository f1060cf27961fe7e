"""Grading suite for exercise 18-tree-attention-mask: tree_attention_mask and tree_position_ids.

Graded exactly: every mask and every position list is compared with an independent reference
(tests/reference/ex18_reference.py); a mismatch shows the wrong rows beside the expected ones.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex18_reference import reference_mask, reference_positions
from tests.reference.ex18_report import describe_case, mask_report, positions_report
from tests.shared.cases import case_seed

EXERCISE = "18-tree-attention-mask"
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def tree_attention_mask():
    return learner_function(EXERCISE, "tree_attention_mask")


def tree_position_ids():
    return learner_function(EXERCISE, "tree_position_ids")


def check_mask(parents, prefix_length, what: str) -> np.ndarray:
    plain = [int(p) for p in parents]
    got = call_learner(tree_attention_mask(), parents, prefix_length, case=describe_case(plain, prefix_length))
    expected = reference_mask(plain, prefix_length)
    if not isinstance(got, torch.Tensor):
        raise GradingFailure(f"tree_attention_mask must return a torch.Tensor; for {what} it returned {type(got).__name__}")
    if tuple(got.shape) != expected.shape:
        raise GradingFailure(f"tree_attention_mask returned shape {tuple(got.shape)} for {what}; expected (n, L + n) = "
                             f"{expected.shape}.\n\n{describe_case(plain, prefix_length)}")
    if got.dtype != torch.bool:
        raise GradingFailure(f"tree_attention_mask must return a torch.bool tensor; for {what} it returned {got.dtype}.")
    mine = got.numpy()
    if not (mine == expected).all():
        raise GradingFailure(mask_report(f"tree_attention_mask got {what} wrong.", plain, prefix_length, expected, mine))
    return mine


def check_positions(parents, prefix_length, what: str) -> list[int]:
    plain = [int(p) for p in parents]
    got = call_learner(tree_position_ids(), parents, prefix_length, case=describe_case(plain, prefix_length))
    expected = reference_positions(plain, prefix_length)
    if not isinstance(got, torch.Tensor):
        raise GradingFailure(f"tree_position_ids must return a torch.Tensor; for {what} it returned {type(got).__name__}")
    if tuple(got.shape) != (len(plain),):
        raise GradingFailure(f"tree_position_ids returned shape {tuple(got.shape)} for {what}; expected ({len(plain)},).")
    if got.dtype != torch.int64:
        raise GradingFailure(f"tree_position_ids must return a torch.int64 tensor; for {what} it returned {got.dtype}.")
    mine = got.tolist()
    if mine != expected:
        raise GradingFailure(positions_report(f"tree_position_ids got {what} wrong.", plain, prefix_length, expected, mine))
    return mine


# Task 1: the worked example ------------------------------------------------------------------

WORKED = [-1, 0, 0, 1]


@pytest.mark.task(1)
def test_worked_example_mask():
    rows = check_mask(WORKED, 2, "the worked example").astype(int).tolist()
    assert rows == [[1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 1, 0], [1, 1, 1, 1, 0, 1]]


@pytest.mark.task(1)
def test_worked_example_positions():
    assert check_positions(WORKED, 2, "the worked example") == [2, 3, 3, 4]


# Task 2: a chain is the causal mask shifted by L ---------------------------------------------

@pytest.mark.parametrize("n, prefix_length", [(1, 0), (5, 0), (5, 3), (12, 7)])
@pytest.mark.task(2)
def test_a_chain_is_the_causal_mask_shifted_by_the_prefix(n, prefix_length):
    chain = [-1] + list(range(n - 1))
    mask = check_mask(chain, prefix_length, f"a chain of {n} nodes after {prefix_length} cached tokens")
    # Property, independent of the reference: a chain is ordinary causal decoding.
    causal = np.tril(np.ones((n, n), dtype=bool))
    assert mask[:, :prefix_length].all() and (mask[:, prefix_length:] == causal).all()


@pytest.mark.task(2)
def test_a_chain_counts_positions_one_by_one():
    assert check_positions([-1, 0, 1, 2, 3], 4, "a chain of 5 nodes") == [4, 5, 6, 7, 8]


# Task 3: stars and two-level top-2 trees -----------------------------------------------------

@pytest.mark.task(3)
def test_a_star_sees_only_itself_among_the_nodes():
    mask = check_mask([-1, -1, -1, -1], 3, "a star of 4 children of the last token")
    assert (mask[:, 3:] == np.eye(4, dtype=bool)).all()


@pytest.mark.task(3)
def test_a_star_under_one_root():
    check_mask([-1, 0, 0, 0, 0], 1, "a root with four children")


@pytest.mark.task(3)
def test_a_two_level_tree_of_top_two_children():
    # Two children of the last token (0, 1), each with two children (2, 3 under 0; 4, 5 under 1).
    rows = check_mask([-1, -1, 0, 0, 1, 1], 1, "a two-level tree of top-2 children").astype(int).tolist()
    assert rows[5] == [1, 0, 1, 0, 0, 0, 1]


@pytest.mark.task(3)
def test_a_deep_branch_sees_all_its_ancestors_not_just_its_parent():
    check_mask([-1, 0, 1, 2, 0, 4, 3], 0, "a branch of depth 4 beside a second branch")


@pytest.mark.task(3)
def test_an_empty_prefix_has_no_prefix_columns():
    check_mask([-1, -1, 0, 1], 0, "a tree with no cached prefix")


# Task 4: position ids by depth ---------------------------------------------------------------

@pytest.mark.task(4)
def test_positions_of_a_two_level_tree():
    assert check_positions([-1, -1, 0, 0, 1, 1], 10, "a two-level tree of top-2 children") == [10, 10, 11, 11, 11, 11]


@pytest.mark.task(4)
def test_positions_of_a_star():
    assert check_positions([-1, -1, -1], 0, "a star of 3 children of the last token") == [0, 0, 0]


@pytest.mark.task(4)
def test_positions_when_nodes_are_not_listed_by_depth():
    assert check_positions([-1, 0, -1, 1, 2, 3], 5, "a tree listed depth-first") == [5, 6, 5, 7, 6, 8]


# Task 5: types and shapes --------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["tuple", "numpy", "torch"])
@pytest.mark.task(5)
def test_tuples_numpy_and_torch_parents_are_accepted(kind):
    parents = {"tuple": tuple(WORKED), "numpy": np.array(WORKED), "torch": torch.tensor(WORKED)}[kind]
    check_mask(parents, 2, f"the worked example as a {kind}")
    check_positions(parents, 2, f"the worked example as a {kind}")


@pytest.mark.task(5)
def test_numpy_integer_prefix_length_is_accepted():
    check_mask(WORKED, np.int64(3), "prefix_length given as a numpy integer")
    check_positions(WORKED, np.int32(3), "prefix_length given as a numpy integer")


@pytest.mark.task(5)
def test_does_not_modify_its_input():
    parents = list(WORKED)
    call_learner(tree_attention_mask(), parents, 2, case=describe_case(parents, 2))
    call_learner(tree_position_ids(), parents, 2, case=describe_case(parents, 2))
    if parents != WORKED:
        raise GradingFailure(f"the functions changed parents in place: it is now {parents}; work on a copy.")


# Task 6: random trees against the reference --------------------------------------------------

def random_tree(gen, n: int) -> list[int]:
    """Each node's parent is -1 or an earlier node, so parents come before children."""
    return [int(gen.integers(-1, node)) if node else -1 for node in range(n)]


@pytest.mark.generated
@pytest.mark.parametrize("seed", [1800, 1801, 1802])
@pytest.mark.task(6)
def test_random_trees_match_the_reference(seed):
    seed = case_seed(seed)  # the committed seed, or a fresh one under --streams
    gen = np.random.default_rng(seed)
    cases = 100
    for index in range(cases):
        n, prefix_length = int(gen.integers(1, 25)), int(gen.integers(0, 12))
        parents = random_tree(gen, n)
        what = f"random tree {index} of {cases} (seed {seed})"
        try:
            check_mask(parents, prefix_length, what)
            check_positions(parents, prefix_length, what)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing random tree; trees before it passed.)") from None


# Task 7: bad trees ---------------------------------------------------------------------------

BAD_TREES = {
    "negative-prefix": ([-1, 0], -1, ("prefix_length",), "prefix_length = -1"),
    "float-prefix": ([-1, 0], 2.0, ("prefix_length",), "prefix_length = 2.0"),
    "bool-prefix": ([-1, 0], True, ("prefix_length",), "prefix_length = True"),
    "two-dimensional": (np.array([[-1, 0], [-1, 0]]), 2, ("1-D",), "a 2-D array of parents"),
    "empty": ([], 2, ("empty",), "no nodes at all (n = 0)"),
    "float-entry": ([-1, 0.5], 2, ("integer",), "a parent 0.5"),
    "bool-entry": ([-1, True], 2, ("integer",), "a parent True"),
    "float-array": (np.array([-1.0, 0.0]), 2, ("integer",), "a float array of parents"),
    "index-too-large": ([-1, 0, 3], 2, ("out of range",), "a parent 3 in a tree of 3 nodes"),
    "index-below-minus-one": ([-1, -2], 2, ("out of range",), "a parent -2"),
    "self-parent": ([-1, 1], 2, ("its own parent",), "node 1 whose parent is 1"),
    "two-cycle": ([1, 0], 2, ("cycle",), "nodes 0 and 1, each the other's parent"),
    "three-cycle": ([-1, 3, 1, 2], 2, ("cycle",), "nodes 1 -> 3 -> 2 -> 1"),
    "parent-after-child": ([-1, 2, 0], 2, ("after",), "node 1 whose parent 2 comes after it"),
}


@pytest.mark.parametrize("function", ["tree_attention_mask", "tree_position_ids"])
@pytest.mark.parametrize("name", BAD_TREES)
@pytest.mark.task(7)
def test_bad_trees_raise_a_value_error_naming_the_problem(name, function):
    parents, prefix_length, mentions, problem = BAD_TREES[name]
    expect_value_error(learner_function(EXERCISE, function), parents, prefix_length, mentions=mentions, problem=problem)
