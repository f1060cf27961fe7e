"""Grading suite for exercise 24-tree-shapes: expected_tokens, optimal_tree, dynamic_tree.

Values are compared with exact rational values (tests/reference/ex24_reference.py): relative 1e-12
for expected_tokens; for optimal_tree the learner's shape is checked valid and its exact value
compared with the optimum, found by enumerating every shape (budgets up to 7) or by the
reference's own dynamic programme (up to 64), to a relative 1e-9, so any of several tied shapes
passes. dynamic_tree is replayed: the paths it asks the draft for, in order, and the shape it
returns must equal the reference's. Generated cases come from fixed seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

from speckata.decoding.tree_shapes import TreeShape, chain
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from tests.reference.ex24_reference import (
    best_shape,
    brute_force_optimum,
    dp_optimum,
    exact_value,
    path_confidence,
    reference_dynamic_tree,
)
from tests.shared.cases import case_rng

EXERCISE = "24-tree-shapes"
MEASURED = [0.62, 0.38, 0.27, 0.2, 0.16, 0.13, 0.1, 0.08]  # a vector like the bench's, falling with rank


def learner(name):
    return learner_function(EXERCISE, name)


def relative_gap(value, exact) -> float:
    return abs(float(value) - float(exact)) / abs(float(exact))


def check_expected(tree, acceptance, what: str) -> float:
    call = f"expected_tokens({list(getattr(tree, 'paths', tree))}, {list(acceptance)})"
    value = call_learner(learner("expected_tokens"), tree, acceptance, case=f"The call: {call} ({what})")
    exact = exact_value(TreeShape(tree).paths, acceptance)
    if type(value) is not float:
        raise GradingFailure(f"{call} must return a plain Python float; it returned {type(value).__name__} {value!r}.")
    if not relative_gap(value, exact) <= 1e-12:
        raise GradingFailure(f"expected_tokens got {what} wrong.\n  the call: {call}\n  yours:    {value!r}\n"
                             f"  expected: {float(exact)!r}")
    return value


def check_optimum(acceptance, budget, optimum, what: str, max_depth=None) -> TreeShape:
    call = f"optimal_tree({list(acceptance)}, {budget}{'' if max_depth is None else f', max_depth={max_depth}'})"
    shape = call_learner(learner("optimal_tree"), acceptance, budget, max_depth, case=f"The call: {call} ({what})")
    if not isinstance(shape, TreeShape):
        raise GradingFailure(f"{call} must return a TreeShape (speckata.decoding.tree_shapes); it returned {shape!r}.")
    problems = [f"it has {len(shape)} nodes, not {budget}"] * (len(shape) != budget)
    problems += [f"{path} has rank {path[-1]} >= len(acceptance) = {len(acceptance)}"
                 for path in shape.paths if path[-1] >= len(acceptance)][:1]
    problems += [f"{path} is deeper than max_depth = {max_depth}"
                 for path in shape.paths if max_depth is not None and len(path) > max_depth][:1]
    if problems:
        raise GradingFailure(f"optimal_tree got {what} wrong: {'; '.join(problems)}.\n  the call: {call}\n"
                             f"  yours:    {shape.paths}")
    value = exact_value(shape.paths, acceptance)
    if not relative_gap(value, optimum) <= 1e-9:
        best = best_shape(acceptance, budget, max_depth)
        raise GradingFailure(f"optimal_tree got {what} wrong: its shape is not the best (expected tokens per pass "
                             f"{float(value)!r}; the best shape's {float(optimum)!r}).\n  the call: {call}\n"
                             f"  yours:     {shape.paths}\n    expected tokens per pass {float(value)!r}\n"
                             f"  the best:  {best}\n    expected tokens per pass {float(exact_value(best, acceptance))!r}"
                             f"\n  (any shape of the best value passes; this is one)")
    return shape


class TableDraft:
    """A draft given as a table of rows by path, recording the paths it is asked about. (A class of the
    suite, not a lambda: the grader ships suite classes to the worker that runs the learner's code.)"""

    def __init__(self, rows):
        self.rows, self.asked = rows, []

    def __call__(self, path):
        self.asked.append(path)
        return self.rows.get(path, next(iter(self.rows.values())))


class RecordedDraft:
    """A draft that records the paths it is asked about; its rows depend only on (seed, path)."""

    def __init__(self, seed: int, vocab: int, step: float | None):
        self.seed, self.vocab, self.step, self.asked = seed, vocab, step, []

    def __call__(self, path):
        self.asked.append(path)
        gen = np.random.default_rng([self.seed, len(path)] + [int(t) for t in path])
        row = gen.dirichlet(np.full(self.vocab, 0.5))
        return np.round(row / self.step) * self.step if self.step else row  # a coarse grid makes ties


def expanded(paths, at, seed, vocab, step) -> str:
    if at >= len(paths):
        return "is none (no more calls)"
    return f"expands {paths[at]} (confidence {path_confidence(RecordedDraft(seed, vocab, step), paths[at]):.6g})"


def confidences(paths, seed, vocab, step) -> str:
    rows = [f"    {path}  {path_confidence(RecordedDraft(seed, vocab, step), path):.6g}" for path in paths]
    return "\n".join(rows) or "    (none)"


def check_dynamic(seed, vocab, step, budget, top_k, depth, what: str):
    call = f"dynamic_tree(draft_probs, budget={budget}, top_k={top_k}, depth={depth})"
    case = f"The call: {call}; draft_probs: random rows over {vocab} tokens, seed {seed} ({what})"
    expected, asked = reference_dynamic_tree(RecordedDraft(seed, vocab, step), budget, top_k, depth)
    draft = RecordedDraft(seed, vocab, step)
    shape = call_learner(learner("dynamic_tree"), draft, budget, top_k, depth, case=case)
    if draft.asked != asked:
        at = next((i for i, (a, b) in enumerate(zip(draft.asked, asked)) if a != b), min(len(draft.asked), len(asked)))
        raise GradingFailure(f"dynamic_tree expanded other nodes than the contract ({what}): call {at} of draft_probs "
                             f"{expanded(draft.asked, at, seed, vocab, step)}; the contract's {expanded(asked, at, seed, vocab, step)}"
                             f".\n  {case}\n  yours, from call {at}, with each path's confidence:\n"
                             f"{confidences(draft.asked[at:at + 6], seed, vocab, step)}\n  expected, from call {at}:\n"
                             f"{confidences(asked[at:at + 6], seed, vocab, step)}\n  ({len(draft.asked)} calls; expected "
                             f"{len(asked)}: the root, then the top_k most confident nodes of each level, in level order)")
    paths = getattr(shape, "paths", shape)
    if not isinstance(shape, TreeShape) or paths != TreeShape(expected).paths:
        raise GradingFailure(f"dynamic_tree got {what} wrong.\n  {case}\n  yours:    {paths}\n"
                             f"  expected: {TreeShape(expected).paths} (a TreeShape)\n  the reference kept, most "
                             f"confident first: {expected}")


# Task 1: expected_tokens, the value of a shape ---------------------------------------------------

@pytest.mark.task(1)
def test_expected_tokens_worked_example():
    assert check_expected([(0,), (0, 0), (0, 0, 0)], [0.5, 0.5], "the worked example's chain") == 1.875
    assert check_expected([(0,), (1,), (0, 0)], [0.5, 0.5], "the worked example's tree") == 2.0


@pytest.mark.task(1)
def test_expected_tokens_of_a_chain_is_the_geometric_sum_and_empty_is_one():
    check_expected(chain(6), [0.7], "a chain of 6 under acceptance 0.7 (1 + 0.7 + ... + 0.7**6)")
    check_expected(TreeShape([]), [0.7], "the empty tree (only the correction token: 1.0)")
    check_expected([(0,), (1,), (2,)], [0.2, 0.5, 1.0], "a star whose third child is always accepted")


@pytest.mark.task(1)
def test_expected_tokens_uses_the_conditional_chance_of_each_rank():
    check_expected([(0,), (1,), (1, 0), (1, 1), (1, 1, 0)], [0.3, 0.6, 0.9],
                   "a deep second child (its chance is (1 - 0.3) * 0.6, and its own children's the same way)")


def random_shape(gen, nodes: int, width: int) -> list[tuple]:
    paths, held = [], set()
    while len(paths) < nodes:
        parent = paths[int(gen.integers(len(paths)))] if paths and gen.random() < 0.8 else ()
        rank = sum(1 for p in held if p[:-1] == parent)
        if rank < width:
            held.add(parent + (rank,))
            paths.append(parent + (rank,))
    gen.shuffle(paths)
    return paths


@pytest.mark.generated
@pytest.mark.task(1)
def test_expected_tokens_on_generated_shapes():
    """200 shapes (seed 2401): 1..40 nodes, width 1..5, acceptance uniform in [0, 1]; relative 1e-12."""
    gen = case_rng(2401)
    for index in range(200):
        width = int(gen.integers(1, 6))
        acceptance = [float(a) for a in gen.random(width)]
        paths = random_shape(gen, int(gen.integers(1, 41)), width)
        check_expected(TreeShape(paths) if index % 2 else paths, acceptance, f"generated case {index}")


# Task 2: optimal_tree, the best shape for a budget -----------------------------------------------

@pytest.mark.task(2)
def test_optimal_tree_worked_example():
    check_optimum([0.5, 0.5], 3, 2.0, "the worked example (best: two children and a grandchild, 2.0)")


VECTORS = {"falling": [0.6, 0.3, 0.2], "rising": [0.3, 0.9], "one-child": [0.8], "sure-first": [1.0, 0.5],
           "flat": [0.5, 0.5, 0.5], "measured": MEASURED[:4]}


@pytest.mark.parametrize("name", VECTORS)
@pytest.mark.task(2)
def test_optimal_tree_beats_every_shape_up_to_seven_nodes(name):
    acceptance = VECTORS[name]
    for budget in range(1, 8):
        check_optimum(acceptance, budget, brute_force_optimum(acceptance, budget),
                      f"budget {budget}: compared with every shape of {budget} nodes")


@pytest.mark.task(2)
def test_optimal_tree_respects_max_depth():
    for acceptance, budget, depth in (([0.9, 0.5, 0.4], 3, 1), ([0.9, 0.5, 0.3], 6, 2), (MEASURED[:3], 7, 3)):
        check_optimum(acceptance, budget, brute_force_optimum(acceptance, budget, depth),
                      f"max_depth {depth}: every shape of {budget} nodes at most {depth} deep", max_depth=depth)


@pytest.mark.parametrize("budget", [8, 16, 32, 64])
@pytest.mark.task(2)
def test_optimal_tree_large_budgets(budget):
    check_optimum(MEASURED, budget, dp_optimum(MEASURED, budget), f"budget {budget}, 8 falling acceptances")
    check_optimum(MEASURED[:3], budget, dp_optimum(MEASURED[:3], budget, 4), f"budget {budget}, max_depth 4",
                  max_depth=4)


@pytest.mark.generated
@pytest.mark.task(2)
def test_optimal_tree_on_generated_vectors():
    """60 vectors (seed 2402): 1..4 entries uniform in [0, 1], budgets 1..6, every shape enumerated."""
    gen = case_rng(2402)
    for index in range(60):
        acceptance = [float(a) for a in gen.random(int(gen.integers(1, 5)))]
        budget = int(gen.integers(1, 7))
        check_optimum(acceptance, budget, brute_force_optimum(acceptance, budget), f"generated case {index}")


# Task 3: dynamic_tree, EAGLE-2's expansion, replayed ---------------------------------------------

@pytest.mark.task(3)
def test_dynamic_tree_worked_example():
    draft = TableDraft({(): [0.6, 0.3, 0.1], (0,): [0.5, 0.1, 0.4], (1,): [0.9, 0.05, 0.05]})
    shape = call_learner(learner("dynamic_tree"), draft, 4, 2, 2, case="The worked example: dynamic_tree(draft_probs, 4, 2, 2)")
    paths, asked = getattr(shape, "paths", shape), draft.asked
    if paths != [(0,), (1,), (0, 0), (1, 0)] or asked != [(), (0,), (1,)]:
        raise GradingFailure(f"The worked example keeps [(0,), (1,), (0, 0), (1, 0)] after asking about "
                             f"[(), (0,), (1,)]; yours kept {paths} after asking about {asked}.")


@pytest.mark.parametrize("top_k,depth,budget", [(2, 3, 6), (3, 4, 10), (4, 5, 16), (1, 6, 5), (4, 4, 52)])
@pytest.mark.task(3)
def test_dynamic_tree_replays_the_reference(top_k, depth, budget):
    for seed in range(3):
        check_dynamic(seed, 12, None, budget, top_k, depth, f"seed {seed}")


@pytest.mark.task(3)
def test_dynamic_tree_ties_follow_the_stated_rule():
    for seed in range(6):  # rows on a grid of 0.1: equal probabilities and equal confidences everywhere
        check_dynamic(seed, 6, 0.1, 9, 3, 3, f"rows rounded to 0.1 (ties), seed {seed}")


@pytest.mark.generated
@pytest.mark.task(3)
def test_dynamic_tree_on_generated_settings():
    """80 settings (seed 2403): vocabulary 4..30, top_k 1..5, depth 1..6, any budget that fits."""
    gen = case_rng(2403)
    for index in range(80):
        vocab, top_k, depth = int(gen.integers(5, 31)), int(gen.integers(1, 6)), int(gen.integers(1, 7))
        budget = int(gen.integers(1, top_k + (depth - 1) * top_k * top_k + 1))
        check_dynamic(1000 + index, vocab, 0.05 if index % 3 == 0 else None, budget, top_k, depth,
                      f"generated case {index}")


# Task 4: bad input ---------------------------------------------------------------------------------

BAD_INPUTS = {
    "acceptance-above-one": ("expected_tokens", ([(0,)], [1.5]), ("acceptance",), "acceptance [1.5]"),
    "acceptance-empty": ("optimal_tree", ([], 3), ("acceptance",), "an empty acceptance vector"),
    "acceptance-nan": ("optimal_tree", ([0.5, float("nan")], 3), ("acceptance",), "acceptance holding NaN"),
    "rank-beyond-vector": ("expected_tokens", ([(0,), (1,), (2,)], [0.5, 0.5]), ("acceptance",),
                           "a rank-2 child with 2 acceptance entries"),
    "tree-invalid": ("expected_tokens", ([(1,)], [0.5, 0.5]), ("tree",), "a tree holding (1,) without (0,)"),
    "budget-zero": ("optimal_tree", ([0.5], 0), ("budget",), "budget 0"),
    "budget-float": ("optimal_tree", ([0.5], 3.0), ("budget",), "budget 3.0 (a float)"),
    "budget-too-big": ("optimal_tree", ([0.5, 0.5], 7, 2), ("budget",), "7 nodes, width 2, max_depth 2 (6 fit)"),
    "max-depth-zero": ("optimal_tree", ([0.5], 3, 0), ("max_depth",), "max_depth 0"),
    "draft-not-callable": ("dynamic_tree", ([0.5, 0.5], 3, 2, 2), ("draft_probs",), "draft_probs a list"),
    "top-k-zero": ("dynamic_tree", (TableDraft({(): [0.25] * 4}), 3, 0, 2), ("top_k",), "top_k 0"),
    "depth-zero": ("dynamic_tree", (TableDraft({(): [0.25] * 4}), 3, 2, 0), ("depth",), "depth 0"),
    "dynamic-budget-too-big": ("dynamic_tree", (TableDraft({(): [0.25] * 4}), 7, 2, 2), ("budget",), "budget 7 > 2 + 1 x 4"),
    "row-too-short": ("dynamic_tree", (TableDraft({(): [0.25] * 4}), 3, 5, 2), ("probabilities",), "rows of 4 tokens, top_k 5"),
    "row-negative": ("dynamic_tree", (TableDraft({(): [1.2, -0.2]}), 1, 1, 1), ("probabilities",), "a row [1.2, -0.2]"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(4)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    function, args, mentions, problem = BAD_INPUTS[name]
    expect_value_error(learner(function), *args, mentions=mentions, problem=problem)
