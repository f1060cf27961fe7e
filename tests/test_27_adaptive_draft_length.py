"""Grading suite for exercise 27-adaptive-draft-length: keep_drafting, update_acceptance, next_gamma, adaptive_speculative_generate.

The rules are graded exactly against the reference's (tests/reference/ex27_reference.py: the best
gamma in rational arithmetic by exercise 26's reference). Every decoder case wraps both models in
a RecordingModel, runs the learner's decoder with a seeded torch generator and compares with the
reference (tests/reference/ex27_cases.py): every row's tokens, every call each model received,
the statistics and the generator's state afterwards.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.models.pretrained import char_tokenizer, load_draft, load_target
from speckata.models.recording import RecordingModel
from tests.reference import ex27_cases as cases
from tests.reference import ex27_reference as reference
from tests.reference.ex25_cases import chains
from tests.reference.ex25_reference import reference_batched_generate
from tests.reference.ex27_bad_input import BAD_DECODER_SETTINGS, BAD_RULE_CALLS
from tests.reference.ex27_cases import FINISHING_COSTS, GPU_COSTS, PROBE_COSTS, TOY_COSTS
from tests.reference.ex27_explain import EXPLAIN, STEP
from tests.reference.ex27_statistics import PROBE_STAT_RULES, PROBE_STAT_RUNS, STAT_RULES, check_rows, row_chi_squares

EXERCISE = "27-adaptive-draft-length"

pytestmark = pytest.mark.usefixtures("one_torch_thread")



def adaptive_speculative_generate():
    return learner_function(EXERCISE, "adaptive_speculative_generate")


def check_case(*args, **kwargs):
    return cases.check_case(adaptive_speculative_generate(), *args, **kwargs)



def check_value(name: str, args: tuple, expected, tolerance: float = 0.0):
    call = f"{name}{tuple(args)!r}"[:400]
    got = call_learner(learner_function(EXERCISE, name), *args, case=call)
    wrong = (type(got) is not type(expected) and not (isinstance(expected, float) and isinstance(got, (float, np.floating)))
             or abs(float(got) - float(expected)) > tolerance)
    if wrong:
        step = f"; check {STEP[name](got, *args)}" if name in STEP else ""
        formula = f"\n{EXPLAIN[name](*args)}" if name in EXPLAIN else ""
        raise GradingFailure(f"{call} returned {got!r} ({type(got).__name__}); expected {expected!r} "
                             f"({type(expected).__name__}){step}.{formula}")


# Task 1: keep_drafting, rule (a)'s stop test ------------------------------------------------------------

KEEP_CASES = {
    "one row above": ([0.2, 0.6], 0.5, True), "every row below": ([0.2, 0.4], 0.5, False),
    "a tie keeps drafting": ([0.5], 0.5, True), "a tie in the second row": ([0.1, 0.25], 0.25, True),
    "threshold 0 never stops": ([0.0, 0.0], 0.0, True), "threshold 1, a sure draft": ([1.0], 1.0, True),
    "threshold 1, an unsure draft": ([0.999], 1.0, False), "only the last row above": ([0.1, 0.1, 0.9], 0.3, True),
    "only the first row above": ([0.9, 0.1, 0.1], 0.3, True), "a tensor": (torch.tensor([0.3, 0.1], dtype=torch.float64), 0.35, False),
}


@pytest.mark.parametrize("name", list(KEEP_CASES))
@pytest.mark.task(1)
def test_keep_drafting_stops_only_when_every_row_is_below(name):
    confidence, threshold, expected = KEEP_CASES[name]
    assert reference.reference_keep_drafting(confidence, threshold) == expected
    check_value("keep_drafting", (confidence, threshold), expected)


# Task 2: update_acceptance, the moving average of the acceptance rate ------------------------------------

ACCEPTANCE_CASES = [(0.5, [2, 0, 1], 2, 0.5), (0.8, [1, 0], 2, 0.25), (0.1, [3, 3], 3, 0.9), (0.6, [0, 0, 0], 4, 1.0),
                    (0.3, [1], 1, 0.2), (0.7, [4, 1, 0, 2], 4, 0.3), (0.45, [0, 0], 0, 0.5)]


@pytest.mark.parametrize("case", ACCEPTANCE_CASES, ids=str)
@pytest.mark.task(2)
def test_update_acceptance_blends_the_rounds_kept_over_tested_drafts(case):
    check_value("update_acceptance", case, reference.reference_update_acceptance(*case), tolerance=1e-12)


# Task 3: next_gamma, the table's row and exercise 26's best gamma -----------------------------------------

@pytest.mark.parametrize("alpha, active_rows", [(0.2, 2), (0.5, 2), (0.9, 2), (0.5, 1), (0.9, 3), (0.9, 4), (0.99, 7), (0.6, 1)])
@pytest.mark.task(3)
def test_next_gamma_on_the_toy_table(alpha, active_rows):
    check_value("next_gamma", (alpha, active_rows, *TOY_COSTS), reference.reference_next_gamma(alpha, active_rows, *TOY_COSTS))


@pytest.mark.parametrize("active_rows", [1, 3, 4, 15, 16, 17, 63, 64, 200, 256, 1000])
@pytest.mark.task(3)
def test_next_gamma_reads_the_row_of_the_largest_batch_size_not_above_active_rows(active_rows):
    for alpha in (0.3, 0.6, 0.8, 0.95):
        check_value("next_gamma", (alpha, active_rows, *GPU_COSTS), reference.reference_next_gamma(alpha, active_rows, *GPU_COSTS))


@pytest.mark.task(3)
def test_next_gamma_below_the_first_batch_size_reads_the_first_row():
    target, draft, _ = TOY_COSTS
    check_value("next_gamma", (0.9, 1, target[1:], draft[1:], [2, 4]), reference.reference_next_gamma(0.9, 1, target[1:], draft[1:], [2, 4]))


# Task 4: the worked example, and no rules is exercise 25 -----------------------------------------------------

@pytest.mark.task(4)
def test_worked_example():
    models = "the worked example's order-1 chains"
    result, _ = check_case(models, *chains("example"), [[0], [1, 2]], 8, 3, seed=6)
    assert result.drafted_per_round == [3, 3, 2]
    result, _ = check_case(models, *chains("example"), [[0], [1, 2]], 8, 3, seed=6, threshold=0.27)
    assert result.tokens == [[1, 2, 2, 1, 1, 0, 2, 1], [2, 1, 0, 1, 0, 2, 0, 1]]
    costs = ([[10, 10, 10, 10], [10, 12, 14, 16]], [1, 1], [1, 2])
    result, _ = check_case(models, *chains("example"), [[0], [1, 2]], 8, 3, seed=6, threshold=0.27, costs=costs)
    assert result.drafted_per_round == [1, 2, 2, 1]


@pytest.mark.parametrize("models", ["far", "close"])
@pytest.mark.task(4)
def test_without_the_rules_it_is_exercise_25(models):
    prompts, seed = [[0, 1], [3], [2, 2, 1, 0]], 40 + len(models)
    result, _ = check_case(f"order-2 chains ({models})", *chains(models), prompts, 14, 3, seed=seed)
    ex25 = reference_batched_generate(*chains(models), prompts, 14, 3, torch.Generator().manual_seed(seed))
    if result.tokens != ex25.tokens or result.drafted_per_round != ex25.drafted_per_round:
        raise GradingFailure(f"With threshold 0 and costs None the decoder must be exercise 25's with gamma = max_gamma; "
                             f"yours emitted {result.tokens} in rounds of {result.drafted_per_round}, exercise 25's "
                             f"{ex25.tokens} in rounds of {ex25.drafted_per_round}.")


# Task 5: exact replay against the reference, with the rules ----------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("models", ["far", "close", "example"])
@pytest.mark.task(5)
def test_random_cases_with_the_rules_match_the_reference(models):
    gen = torch.Generator().manual_seed(case_seed(100 + len(models)))
    for index in range(12):
        batch = int(torch.randint(1, 6, (), generator=gen))
        prompts = [torch.randint(0, 3, (int(torch.randint(1, 5, (), generator=gen)),), generator=gen).tolist()
                   for _ in range(batch)]
        rules = {"threshold": float(torch.rand((), generator=gen)) * 0.6, "beta": [0.25, 0.5, 0.8, 1.0][index % 4],
                 "initial_alpha": round(float(torch.rand((), generator=gen)), 3), "costs": TOY_COSTS if index % 3 else None}
        max_gamma, max_new_tokens = int(torch.randint(1, 5, (), generator=gen)), int(torch.randint(1, 16, (), generator=gen))
        try:
            check_case(f"toy chains ({models})", *chains(models), prompts, max_new_tokens, max_gamma, seed=case_seed(700 + index),
                       temperature=[1.0, 0.7, 1.5][index % 3], **rules)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 12; the cases before it passed)") from None


@pytest.mark.parametrize("models, seed", [("far", 9), ("close", 10), ("far", 11)])
@pytest.mark.task(5)
def test_rule_b_follows_the_estimate_and_the_active_rows(models, seed):
    check_case(f"order-2 chains ({models})", *chains(models), [[0, 1], [3, 2, 2]], 30, 4, seed=seed, costs=FINISHING_COSTS,
               initial_alpha=0.9, beta=0.3)


@pytest.fixture(scope="module")
def trained_models():
    return {"float32": (load_target(), load_draft()), "float64": (load_target(torch.float64), load_draft(torch.float64))}


@pytest.mark.generated
@pytest.mark.parametrize("threshold", [0.15, 0.45])
@pytest.mark.task(5)
def test_trained_models_with_the_rules_match_the_reference(trained_models, threshold):
    target, draft = trained_models["float64"]
    prompts = [char_tokenizer().encode(text) for text in ("The default ", "x", "for i in range(")]
    check_case("the committed trained target and draft, float64", target, draft, prompts, 16, 6, seed=case_seed(31),
               threshold=threshold, costs=GPU_COSTS, initial_alpha=0.8)


# Task 6: temperature 0 is every row's greedy decoding, alone ---------------------------------------------

GREEDY_PROMPTS = ["The class", "def f", "import os\nprint(os."]
GREEDY_TOKENS = 24
MIN_TOP2_GAP = 1e-6  # see exercise 25's suite: a near-tie of the model is not the learner's error


@pytest.mark.task(6)
def test_temperature_zero_rows_equal_greedy_decoding(trained_models):
    target, draft = trained_models["float64"]
    prompts = [char_tokenizer().encode(text) for text in GREEDY_PROMPTS]
    greedy = [autoregressive_generate(target, prompt, GREEDY_TOKENS, torch.Generator(), temperature=0) for prompt in prompts]
    for prompt, path in zip(prompts, greedy):
        target.reset()
        top2 = target.forward_new(prompt + path[:-1])[-GREEDY_TOKENS:].topk(2, dim=-1).values
        assert float((top2[:, 0] - top2[:, 1]).min()) > MIN_TOP2_GAP, f"near-tie in the greedy path of {prompt}"
    result, _ = check_case("the committed target and draft, float64", target, draft, prompts, GREEDY_TOKENS, 5, seed=0,
                           temperature=0.0, threshold=0.9, costs=TOY_COSTS)
    for b, path in enumerate(greedy):
        if result.tokens[b] != path:
            raise GradingFailure(f"At temperature 0 row {b} must equal the target's greedy decoding of prompts[{b}] alone; "
                                 f"yours {result.tokens[b]}, greedy {path}.")


# Task 7: every row is distributed as the target's own sampling of its prompt ------------------------------

@pytest.mark.statistical
@pytest.mark.task(7)
def test_every_row_is_distributed_as_the_target():
    """Chi-square goodness of fit of every row's whole sequence against the target chain, with both rules on.

    Statistic: for each of the 3 rows (prompts [0], [1, 2], [2, 0, 1]), Pearson's chi-square of
    the counts of the 27 sequences of 3 new tokens against their exact probabilities under the
    order-1 target chain, sequences expected fewer than 5 times pooled. Sample: 1200 batched runs
    (max_gamma 2, threshold 0.3, a 3-row cost table, initial_alpha 0.6) from one generator seeded
    with 20261228. Threshold: fail when the smallest of the 3 p-values is below 1e-3. The
    reference's smallest is 0.32; the margin gate (tests/maintainer/test_margins_chi_square.py)
    checks that, and that a decoder advancing every row by the batch's minimum with the
    resampling shortcut scores far below (4e-10 here), with a power of 0.996 on any seed (1000
    runs gave 0.98).
    """
    check_rows(row_chi_squares(adaptive_speculative_generate()), STAT_RULES,
               "Common causes: every row advanced by the batch's smallest count; a round's k decided from the "
               "target's verdict; a replacement drawn from p instead of the residual.")


# Task 8: bad input -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(BAD_DECODER_SETTINGS))
@pytest.mark.task(8)
def test_bad_rule_settings_raise_before_any_model_call(name):
    settings, mentions = BAD_DECODER_SETTINGS[name]
    target, draft = (RecordingModel(m) for m in chains("far"))
    expect_value_error(adaptive_speculative_generate(), target, draft, [[0]], 5, 2, torch.Generator().manual_seed(0),
                       mentions=mentions, problem=f"{settings}", **settings)
    if target.calls or draft.calls:
        raise GradingFailure(f"adaptive_speculative_generate(..., {settings}) called the models before refusing its input.")


@pytest.mark.parametrize("name", list(BAD_RULE_CALLS))
@pytest.mark.task(8)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    function, args, mentions = BAD_RULE_CALLS[name]
    args = args() if callable(args) else args
    expect_value_error(learner_function(EXERCISE, function), *args, mentions=mentions, problem=name)


# Task 9: probe_every, a probe round of gamma 1 out of the gamma-0 lock --------------------------------------

EXAMPLE_PROBE_COSTS = ([[10, 14, 18, 22], [10, 16, 22, 28]], [1, 1], [1, 2])  # drafting pays above alpha 0.5 / 0.7


@pytest.mark.task(9)
def test_probe_worked_example():
    models, prompts = "the worked example's order-1 chains", [[0], [1, 2]]
    rules = {"costs": EXAMPLE_PROBE_COSTS, "initial_alpha": 0.4}
    locked, _ = check_case(models, *chains("example"), prompts, 10, 3, seed=6, **rules)
    assert locked.drafted_per_round == [0] * 10, locked.drafted_per_round
    probed, _ = check_case(models, *chains("example"), prompts, 10, 3, seed=6, probe_every=2, **rules)
    if probed.drafted_per_round != [0, 0, 1, 0, 0, 1, 1, 0]:
        raise GradingFailure(f"With probe_every=2 the worked example drafts {probed.drafted_per_round} per round; the "
                             "text's rule gives [0, 0, 1, 0, 0, 1, 1, 0]: two rounds at gamma 0, then a probe of gamma 1.")


@pytest.mark.generated
@pytest.mark.parametrize("models", ["far", "close", "example"])
@pytest.mark.task(9)
def test_random_cases_with_probes_match_the_reference(models):
    gen = torch.Generator().manual_seed(case_seed(300 + len(models)))
    for index in range(12):
        batch = int(torch.randint(1, 5, (), generator=gen))
        prompts = [torch.randint(0, 3, (int(torch.randint(1, 4, (), generator=gen)),), generator=gen).tolist()
                   for _ in range(batch)]
        threshold = float(torch.rand((), generator=gen)) * 0.6  # a drawn float: never a chain's exact confidence
        rules = {"threshold": threshold if index % 2 else 0.0, "beta": [0.25, 0.5, 1.0][index % 3],
                 "probe_every": 1 + index % 3, "initial_alpha": round(0.2 + 0.3 * float(torch.rand((), generator=gen)), 3),
                 "costs": PROBE_COSTS}
        try:
            check_case(f"toy chains ({models})", *chains(models), prompts, int(torch.randint(4, 20, (), generator=gen)),
                       int(torch.randint(1, 4, (), generator=gen)), seed=case_seed(900 + index), **rules)
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random probe case {index} of 12; the cases before it passed)") from None


@pytest.mark.statistical
@pytest.mark.task(9)
def test_every_row_is_distributed_as_the_target_with_probes():
    """As Task 7's test (same chains, prompts, seed 20261228, threshold 1e-3 on the smallest of the 3
    rows' p-values; 600 runs: a probe's draft kept unverified scores p = 3e-265 on them, power 1), with
    rule (b) on a table where drafting pays only above alpha 0.45, the estimate starting at 0.1 and
    probe_every=1: round 1 is plain decoding, round 2 a probe of gamma 1."""
    check_rows(row_chi_squares(adaptive_speculative_generate(), PROBE_STAT_RULES, PROBE_STAT_RUNS), PROBE_STAT_RULES,
               "A probe is an ordinary round of k = 1: its draft is verified like any other.")
