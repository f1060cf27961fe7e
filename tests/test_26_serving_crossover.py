"""Grading suite for exercise 26-serving-crossover: serving_throughput, best_gamma, largest_winning_batch.

Deterministic closed forms: every throughput is compared with the exact rational value
(tests/reference/ex26_reference.py) to a relative 1e-9, and best_gamma and largest_winning_batch
exactly with the text's tie rule applied to the exact values. A mismatch names the entry (batch
size, g, context column) and shows the formula with the numbers put in. Generated tables come from
fixed seeds (tests/shared/cases.py), so the verdict never changes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from speckata.grading import GradingFailure, expect_value_error, learner_function
from speckata.roofline import modelled_draft_cost, modelled_target_cost
from tests.reference.ex26_checks import check_best, check_largest, check_throughput
from tests.reference.ex26_reference import exact_best, exact_throughput
from tests.shared.cases import case_rng

EXERCISE = "26-serving-crossover"

# The worked example of the exercise text.
WORKED = np.zeros((2, 3, 2))
WORKED[:, :, 0] = [[10, 10, 10], [10, 20, 30]]
WORKED[:, :, 1] = [[20, 20, 20], [100, 110, 120]]
WORKED_ARGS = (WORKED, np.ones((2, 2)), [1, 16], 0.5)


def table(costs_by_n, draft=0.0, sizes=(1,), alpha=1.0) -> tuple:
    """One context column: costs_by_n[b] is c(B, n) for n = 1 .. N."""
    target = np.asarray(costs_by_n, dtype=float)[:, :, None]
    return target, np.full((target.shape[0], 1), float(draft)), list(sizes), alpha


# Task 1: serving_throughput on given tables ------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_throughput():
    value = check_throughput(WORKED_ARGS, "the worked example")
    assert np.round(value[1], 4).tolist() == [[1.6, 0.16], [1.1429, 0.2162], [0.875, 0.2295]]


@pytest.mark.task(1)
def test_each_gamma_uses_the_pass_of_gamma_plus_one_tokens():
    check_throughput(table([[10, 12, 15, 19, 24], [13, 19, 27, 37, 49]], sizes=(2, 8), alpha=0.75),
                     "costs that differ for every n, no draft cost (g drafts need a pass of n = g + 1 tokens)")


@pytest.mark.task(1)
def test_the_draft_is_charged_once_per_drafted_token():
    check_throughput(table([[10, 10, 10, 10], [40, 40, 40, 40]], draft=3.0, sizes=(1, 4), alpha=0.5),
                     "a pass that costs the same for every n and a draft pass of 3 (g drafts cost 3g)")


@pytest.mark.task(1)
def test_whole_batch_tokens_at_the_ends_of_alpha():
    for alpha in (0.0, 1.0, 1):
        check_throughput(table([[2, 3, 4], [4, 6, 8], [8, 12, 16]], draft=0.5, sizes=(1, 3, 7), alpha=alpha),
                         f"alpha = {alpha!r} (E = 1 at alpha 0, g + 1 at alpha 1; B rows make B times the tokens)")


@pytest.mark.task(1)
def test_a_table_of_one_pass_length_is_plain_only():
    check_throughput(table([[5], [9]], draft=1.0, sizes=(1, 2), alpha=0.9), "N = 1: only the plain column")


@pytest.mark.task(1)
def test_lists_and_numpy_numbers_are_accepted():
    target, draft, _, _ = WORKED_ARGS
    check_throughput((target.tolist(), draft.tolist(), np.array([1, 16]), np.float64(0.5)),
                     "nested lists for the costs, a numpy int array of batch sizes, a numpy float alpha")


@pytest.mark.task(1)
def test_the_modelled_gpu_table():
    sizes, contexts = [1, 8, 64, 256], [512, 8192, 65536]
    args = (modelled_target_cost(sizes, 6, contexts), modelled_draft_cost(sizes, contexts, draft_window=512), sizes, 0.8)
    check_throughput(args, "the modelled H100 / Llama-3-8B table of speckata/roofline.py, in seconds")


# Task 2: best_gamma and its tie rule ------------------------------------------------------------

@pytest.mark.task(2)
def test_worked_example_best_gamma():
    assert check_best(WORKED_ARGS, "the worked example").tolist() == [[2, 2], [0, 2]]


@pytest.mark.task(2)
def test_plain_wins_a_tie_with_speculation():
    check_best(table([[7, 7, 7, 7]], sizes=(3,), alpha=0.0), "alpha = 0 and no draft cost: every g gives 3 / 7, a tie")


@pytest.mark.task(2)
def test_the_smaller_gamma_wins_a_tie_between_gammas():
    check_best(table([[3, 4, 6, 10]], sizes=(1,), alpha=1.0),
               "alpha = 1: g = 1 gives 2 / 4 and g = 2 gives 3 / 6, a tie for the best (g = 3: 4 / 10)")


@pytest.mark.task(2)
def test_throughputs_within_a_relative_1e_9_count_as_a_tie():
    check_best(table([[3, 4, 6 * (1 - 1e-12)]], sizes=(1,), alpha=1.0),
               "g = 2 beats g = 1 by a relative 1e-12 only: within 1e-9, a tie, so g = 1")
    check_best(table([[3, 4, 6 * (1 - 1e-6)]], sizes=(1,), alpha=1.0),
               "g = 2 beats g = 1 by a relative 1e-6: more than 1e-9, so g = 2")


@pytest.mark.task(2)
def test_speculation_loses_when_the_pass_costs_n_times_one():
    check_best(table([[5, 10, 15, 20], [5, 5.5, 6, 6.5]], draft=0.25, sizes=(2, 4), alpha=0.8),
               "batch 2: a pass of n tokens costs n passes of one (compute-bound); batch 4: it costs about one")


@pytest.mark.task(2)
def test_the_modelled_gpu_best_gamma():
    sizes, contexts = [1, 4, 16, 64, 256], [1024, 32768]
    args = (modelled_target_cost(sizes, 9, contexts), modelled_draft_cost(sizes, contexts, draft_window=512), sizes, 0.8)
    check_best(args, "the modelled H100 / Llama-3-8B table, alpha = 0.8")


# Task 3: largest_winning_batch, monotone or not -------------------------------------------------

@pytest.mark.task(3)
def test_worked_example_largest_winning_batch():
    assert check_largest(WORKED_ARGS, "the worked example").tolist() == [1, 16]


@pytest.mark.task(3)
def test_largest_winning_batch_is_a_batch_size_not_an_index():
    check_largest(table([[10, 10, 10], [10, 11, 12], [10, 12, 14]], draft=0.5, sizes=(2, 6, 24), alpha=0.7),
                  "speculation wins at every batch size: the answer is 24, the largest batch size")


@pytest.mark.task(3)
def test_no_winning_batch_gives_zero():
    check_largest(table([[10, 20, 30], [10, 20, 30]], draft=1.0, sizes=(1, 2), alpha=0.5),
                  "a pass of n tokens costs n times one and the draft costs too: speculation never wins")


@pytest.mark.task(3)
def test_a_loss_in_the_middle_does_not_hide_a_win_at_large_batches():
    check_largest(table([[10, 10.5, 11], [10, 20, 30], [10, 20, 30], [40, 41, 42]], draft=0.5, sizes=(1, 4, 8, 64), alpha=0.6),
                  "wins at batch 1, loses at 4 and 8, wins again at 64 (the long-context pattern): 64")


@pytest.mark.task(3)
def test_each_context_column_separately():
    target = np.stack([np.array([[10, 10, 10], [10, 20, 30], [10, 20, 30]], float),
                       np.array([[10, 10, 10], [10, 10, 10], [30, 20, 30]], float),
                       np.array([[10, 10, 10], [10, 11, 12], [10, 11, 12]], float)], axis=-1)
    check_largest((target, np.full((3, 3), 0.5), [1, 2, 4], 0.5), "three context columns with answers 1, 2 and 4")


# Task 4: generated tables against exact values --------------------------------------------------

def generated_case(gen) -> tuple:
    num_b, num_n, num_l = (int(gen.integers(1, k)) for k in (6, 10, 4))
    sizes = np.cumsum(gen.integers(1, 9, size=num_b)).tolist()
    base = gen.uniform(0.5, 20, size=(num_b, 1, num_l))
    slope = gen.uniform(0, 1.5, size=(num_b, 1, num_l)) * base
    target = base + slope * np.arange(num_n)[None, :, None] * gen.uniform(0.8, 1.2, size=(num_b, num_n, num_l))
    draft = gen.uniform(0, 0.3, size=(num_b, num_l)) * base[:, 0, :] * (gen.random() < 0.9)
    alpha = float(gen.choice([0.0, 1.0, gen.random(), gen.random()]))
    return target, draft, sizes, alpha


@pytest.mark.generated
@pytest.mark.task(4)
def test_generated_tables_match_the_exact_values():
    """200 tables (seed 2626): up to 5 batch sizes, N up to 9, up to 3 contexts, costs growing with n
    at random slopes, alpha from {0, 1, uniform}; throughputs to a relative 1e-9, best g and largest
    winning batch exactly (tables with a throughput within 1e-11 of the tie threshold are skipped)."""
    gen, checked = case_rng(2626), 0
    for index in range(200):
        args = generated_case(gen)
        exact = exact_throughput(args[0].tolist(), args[1].tolist(), args[2], args[3])
        if exact_best(exact)[1] < 1e-11:
            continue
        checked += 1
        try:
            check_throughput(args, f"generated table {index}")
            check_best(args, f"generated table {index}")
            check_largest(args, f"generated table {index}")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing generated table; tables before it passed.)") from None
    assert checked > 150


# Task 5: bad input ------------------------------------------------------------------------------

def bad(target=None, draft=None, sizes=None, alpha=0.5) -> tuple:
    return (WORKED if target is None else target, np.ones((2, 2)) if draft is None else draft,
            [1, 16] if sizes is None else sizes, alpha)


NAN_TARGET, NEG_DRAFT, ZERO_TARGET, INF_DRAFT = WORKED.copy(), np.ones((2, 2)), WORKED.copy(), np.ones((2, 2))
NAN_TARGET[1, 2, 0], NEG_DRAFT[0, 1], ZERO_TARGET[0, 0, 1], INF_DRAFT[1, 1] = math.nan, -0.5, 0.0, math.inf
NEG_TARGET = WORKED.copy()
NEG_TARGET[0, 1, 1] = -3.0

BAD_INPUTS = {
    "target-2d": ("serving_throughput", bad(target=WORKED[:, :, 0]), ("target_cost", "shape"), "a 2-D target_cost"),
    "target-empty": ("best_gamma", bad(target=np.ones((2, 0, 2))), ("target_cost", "shape"), "N = 0"),
    "draft-shape": ("serving_throughput", bad(draft=np.ones((2, 3))), ("draft_cost", "shape"), "draft_cost of shape (2, 3)"),
    "sizes-length": ("serving_throughput", bad(sizes=[1, 2, 4]), ("batch_sizes", "shape"), "3 batch sizes for 2 rows"),
    "sizes-2d": ("best_gamma", bad(sizes=np.array([[1, 16]])), ("batch_sizes", "shape"), "batch sizes of shape (1, 2)"),
    "target-nan": ("serving_throughput", bad(target=NAN_TARGET), ("finite",), "a NaN target cost"),
    "draft-inf": ("best_gamma", bad(draft=INF_DRAFT), ("finite",), "an infinite draft cost"),
    "target-negative": ("serving_throughput", bad(target=NEG_TARGET), ("negative",), "a target cost of -3"),
    "draft-negative": ("largest_winning_batch", bad(draft=NEG_DRAFT), ("negative",), "a draft cost of -0.5"),
    "target-zero": ("serving_throughput", bad(target=ZERO_TARGET), ("target_cost", "positive"), "a target cost of 0"),
    "sizes-float": ("serving_throughput", bad(sizes=[1, 16.0]), ("batch_sizes", "integer"), "a batch size of 16.0"),
    "sizes-bool": ("best_gamma", bad(sizes=[True, 16]), ("batch_sizes", "integer"), "a batch size of True"),
    "sizes-zero": ("serving_throughput", bad(sizes=[0, 16]), ("batch_sizes", "at least 1"), "a batch of 0"),
    "sizes-decreasing": ("largest_winning_batch", bad(sizes=[16, 1]), ("batch_sizes", "increasing"), "batch sizes 16, 1"),
    "sizes-repeated": ("serving_throughput", bad(sizes=[4, 4]), ("batch_sizes", "increasing"), "batch sizes 4, 4"),
    "alpha-above-one": ("serving_throughput", bad(alpha=1.5), ("alpha",), "alpha = 1.5"),
    "alpha-nan": ("best_gamma", bad(alpha=math.nan), ("alpha",), "alpha = NaN"),
    "alpha-negative": ("largest_winning_batch", bad(alpha=-0.1), ("alpha",), "alpha = -0.1"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
@pytest.mark.task(5)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    function, args, mentions, problem = BAD_INPUTS[name]
    expect_value_error(learner_function(EXERCISE, function), *args, mentions=mentions, problem=problem)
