"""Grading suite for exercise 29-medusa-tree: head_accuracies, medusa_tree, medusa_tree_generate.

Each function is compared with an independent reference (tests/reference/ex29_reference.py):
the accuracies exactly, the tree path for path, the decoder token for token, call for call on a
recorded target (the prompt's pass, every tree pass with its mask and positions, every kept path)
and draw for draw (the generator's state afterwards). The committed target and heads make it
real (greedy, it is the target's greedy decoding); tiny random GPTs with random heads make the
generated cases and the chi-square test (sampled, it is distributed as the target).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.heads.medusa import MedusaHeads, load_medusa_heads
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import char_tokenizer, load_target, text_windows
from tests.reference import ex29_cases as cases
from tests.reference.ex21_cases import random_heads
from tests.reference.ex22_cases import tiny_gpt
from tests.reference.ex29_reference import worth

EXERCISE = "29-medusa-tree"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]
EXAMPLE_TREE = [(0,), (1,), (2,), (0, 0), (0, 1), (1, 0), (0, 0, 0)]
SPARSE_16 = [(0,), (1,), (2,), (3,), (4,), (5,), (0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (0, 0, 0), (0, 0, 1),
             (0, 1, 0), (1, 0, 0), (0, 0, 0, 0)]  # four deep: fits only a target with 4 heads or more


def fn(name):
    return learner_function(EXERCISE, name)


@lru_cache(maxsize=1)
def trained():
    return load_target(), load_medusa_heads()


# Task 1: how often each head's rank-r token is right ------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_accuracies():
    target, heads = trained()
    cases.check_accuracies(fn("head_accuracies"), target, heads, text_windows("train", 64, limit=1)[0], 3,
                           "the worked example: the committed target and heads, a training window")


@pytest.mark.parametrize("top", [1, 8, 96])
@pytest.mark.task(1)
def test_accuracies_on_held_out_text(top):
    target, heads = trained()
    cases.check_accuracies(fn("head_accuracies"), target, heads, text_windows("held_out", 100, limit=2)[1], top,
                           "the committed target and heads, a held-out window")


@pytest.mark.generated
@pytest.mark.task(1)
def test_accuracies_on_random_tiny_models():
    for index in range(6):
        target = tiny_gpt(case_seed(2900 + index), vocab=3 + index % 4, sharpness=2.0)
        heads = random_heads(target, 1 + index % 3, seed=case_seed(2910 + index), scale=1.0)
        generator = torch.Generator().manual_seed(case_seed(2920 + index))
        ids = torch.randint(0, target.vocab_size, (heads.num_heads + 2 + 3 * index,), generator=generator)
        cases.check_accuracies(fn("head_accuracies"), target, heads, ids, 1 + index % target.vocab_size,
                               f"random tiny GPT {index} (the shortest ids every head can be scored on, and longer)")


# Task 2: the sparse tree ------------------------------------------------------------------------------------

@pytest.mark.task(2)
def test_worked_example_tree():
    cases.check_tree(fn("medusa_tree"), [[0.6, 0.2], [0.5, 0.3]], 4, "the worked example")


@pytest.mark.parametrize("budget", [1, 8, 16, 32])
@pytest.mark.task(2)
def test_tree_from_the_committed_heads_accuracies(budget):
    target, heads = trained()
    windows = text_windows("train", 128, limit=4)
    with torch.no_grad():
        table = sum(cases.reference_accuracies(target, heads, row.tolist(), 8)[0] for row in windows) / 4
    cases.check_tree(fn("medusa_tree"), table, budget, "the committed heads' accuracies on 4 training windows")


@pytest.mark.task(2)
def test_ties_go_to_the_shallower_path_then_the_smaller_ranks():
    # (0,) and (0, 0) are worth 1 * 1; (1,), (0, 1), (1, 0) and (0, 0, 0) ... are worth 0.5 each.
    cases.check_tree(fn("medusa_tree"), [[1.0, 0.5], [1.0, 0.5], [0.5, 0.5]], 6, "a table full of ties")


@pytest.mark.task(2)
def test_a_share_that_rises_with_the_rank_waits_for_its_left_sibling():
    cases.check_tree(fn("medusa_tree"), [[0.2, 0.1, 0.6], [0.5, 0.9, 0.1]], 5,
                     "a table whose rows do not fall: (2,) joins only after (1,)")


@pytest.mark.generated
@pytest.mark.task(2)
def test_falling_rows_give_the_paths_worth_most_and_every_parent():
    """With rows falling in the rank, the tree is the `budget` paths worth most, and closed under parents."""
    generator = torch.Generator().manual_seed(case_seed(2930))
    for index in range(12):
        heads, top = 1 + index % 3, 2 + index % 3
        table = torch.rand(heads, top, generator=generator, dtype=torch.float64).sort(dim=1, descending=True).values
        if index % 3 == 0:
            table = (table * 4).round() / 4  # ties
        budget = 1 + int(torch.randint(0, sum(top ** d for d in range(1, heads + 1)), (), generator=generator))
        got = cases.check_tree(fn("medusa_tree"), table, budget, f"random falling table {index}")
        paths = [p for d in range(1, heads + 1) for p in product(range(top), repeat=d)]
        values = {p: worth(table.tolist(), p) for p in paths}
        best = sorted(paths, key=lambda p: (-values[p], len(p), p))[:budget]
        if sorted(best, key=lambda p: (len(p), p)) != got.paths or any(len(p) > 1 and p[:-1] not in got.paths
                                                                       for p in got.paths):
            raise GradingFailure(f"medusa_tree({table.tolist()}, {budget}) is not the {budget} paths worth most.")


@pytest.mark.generated
@pytest.mark.task(2)
def test_random_tables_match_the_reference():
    generator = torch.Generator().manual_seed(case_seed(2940))
    for index in range(12):
        table = torch.rand(1 + index % 3, 2 + index % 3, generator=generator, dtype=torch.float64)
        budget = min(1 + index * 2, sum(table.shape[1] ** d for d in range(1, table.shape[0] + 1)))
        cases.check_tree(fn("medusa_tree"), table, budget, f"random table {index} (rows in any order)")


# Task 3: decoding with the tree -----------------------------------------------------------------------------

@pytest.mark.task(3)
def test_worked_example_decoding():
    target, heads = trained()
    got, _ = cases.check_run(fn("medusa_tree_generate"), target, heads, char_tokenizer().encode(PROMPTS[0]), 16,
                             EXAMPLE_TREE, 0, 0.0, "the worked example")
    if got.accepted_per_pass != [2, 0, 0, 2, 2, 0, 2] or got.target_passes != 8:
        raise GradingFailure(f"The worked example accepts [2, 0, 0, 2, 2, 0, 2] in 8 passes; got "
                             f"{got.accepted_per_pass} in {got.target_passes}.")


@pytest.mark.parametrize("text", PROMPTS)
@pytest.mark.task(3)
def test_greedy_output_is_the_targets_greedy_decoding(text):
    target, heads = trained()
    prompt = char_tokenizer().encode(text)
    got, _ = cases.check_run(fn("medusa_tree_generate"), target, heads, prompt, 40, SPARSE_16[:15],
                             1, 0.0, f"the committed target and heads, {text!r}, greedy")
    assert got.tokens == autoregressive_generate(target, prompt, 40, torch.Generator(), temperature=0)


@pytest.mark.parametrize("max_new_tokens", [0, 1, 2, 3])
@pytest.mark.task(3)
def test_short_outputs_truncate_the_tree(max_new_tokens):
    target, heads = trained()
    cases.check_run(fn("medusa_tree_generate"), target, heads, char_tokenizer().encode(PROMPTS[2]), max_new_tokens,
                    EXAMPLE_TREE, 5, 1.0, f"{max_new_tokens} new tokens (the tree is cut so no round overshoots)")


@pytest.mark.parametrize("temperature", [1.0, 0.7])
@pytest.mark.generated
@pytest.mark.task(3)
def test_sampled_on_the_committed_models(temperature):
    target, heads = trained()
    cases.check_run(fn("medusa_tree_generate"), target, heads, char_tokenizer().encode(PROMPTS[1]), 30, EXAMPLE_TREE,
                    case_seed(2950), temperature, "the committed target and heads, sampled")


@pytest.mark.generated
@pytest.mark.task(3)
def test_random_tiny_models_match_the_reference():
    trees = [[(0,)], [(0,), (1,), (2,)], [(0,), (0, 0), (0, 0, 0)], EXAMPLE_TREE, SPARSE_16]
    for index in range(10):
        tree = trees[index % len(trees)]
        deep = tree is SPARSE_16  # four heads, and ranks up to 5
        target = tiny_gpt(case_seed(2960 + index), vocab=7 if deep else 3 + index % 3, sharpness=3.0)
        heads = random_heads(target, 4 if deep else 3, seed=case_seed(2970 + index), scale=(0.3, 1.0)[index % 2])
        generator = torch.Generator().manual_seed(case_seed(2980 + index))
        prompt = torch.randint(0, target.vocab_size, (1 + index % 3,), generator=generator).tolist()
        try:
            cases.check_run(fn("medusa_tree_generate"), target, heads, prompt, 6 + index, tree,
                            case_seed(2990 + index), (1.0, 0.0, 1.5, 0.6)[index % 4], f"random tiny GPT {index}")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 10; the cases before it passed)") from None


@pytest.mark.statistical
@pytest.mark.task(3)
def test_sampled_output_is_distributed_as_the_target():
    """Chi-square goodness of fit of whole generated sequences against the target's own law.

    Statistic: Pearson's chi-square of the counts of the 27 sequences of 3 new tokens (a tiny GPT
    over 3 tokens, sharpened, and 2 random heads; the tree [(0,), (1,), (0, 0), (0, 1), (1, 0)])
    against their exact probabilities under the target, those expected fewer than 5 times pooled
    into one bin. Sample: 800 runs from one generator seeded with 20261229, prompt [0], temperature
    1. Threshold: fail when the p-value is below 1e-3. tests/maintainer/test_margins_chi_square.py
    checks the reference's margin, and that the biased mutants score far below with a power of at
    least 0.99 on any seed (the subtlest, a correction resampled from p, 0.997; 600 runs gave 0.94).
    """
    statistic, pvalue, counts, df, law = cases.sequence_chi_square(fn("medusa_tree_generate"))
    if pvalue < cases.STAT_ALPHA:
        worst = sorted(law, key=lambda s: -abs(counts[s] - cases.STAT_RUNS * law[s]))[:5]
        rows = "\n".join(f"    {list(s)}  observed {counts[s] / cases.STAT_RUNS:.4f}  target {law[s]:.4f}" for s in worst)
        raise GradingFailure(
            "The sequences medusa_tree_generate samples are not distributed as the target's.\n"
            f"  runs: {cases.STAT_RUNS}, {cases.STAT_LENGTH} new tokens each, tree {cases.STAT_TREE}, a tiny GPT over 3 "
            f"tokens\n  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < "
            f"{cases.STAT_ALPHA}\n  the sequences furthest from the target:\n{rows}\n"
            "Common causes: the first token taken greedily; a rejected child's token kept instead of verify_top_k's "
            "correction; the bonus token sampled from another row than the last accepted node's.")


# Task 4: bad input ----------------------------------------------------------------------------------------

def bad_inputs():
    tiny = tiny_gpt(0)
    heads, g = MedusaHeads.from_target(tiny, 2), torch.Generator()
    return {
        "ids-too-short": ("head_accuracies", (tiny, heads, [1, 2, 3], 2), ("ids",)),
        "ids-float": ("head_accuracies", (tiny, heads, torch.zeros(6), 2), ("ids",)),
        "top-zero": ("head_accuracies", (tiny, heads, [1, 2, 3, 4, 5], 0), ("top",)),
        "top-above-vocabulary": ("head_accuracies", (tiny, heads, [1, 2, 3, 4, 5], 8), ("top",)),
        "accuracies-above-one": ("medusa_tree", ([[1.5, 0.2]], 1), ("accuracies",)),
        "accuracies-nan": ("medusa_tree", ([[float("nan"), 0.2]], 1), ("accuracies",)),
        "accuracies-1d": ("medusa_tree", ([0.5, 0.2], 1), ("accuracies",)),
        "budget-zero": ("medusa_tree", ([[0.5, 0.2]], 0), ("budget",)),
        "budget-beyond-the-paths": ("medusa_tree", ([[0.5, 0.2], [0.4, 0.1]], 7), ("budget",)),
        "empty-tree": ("medusa_tree_generate", (tiny, heads, [0], 4, [], g), ("tree",)),
        "tree-deeper-than-the-heads": ("medusa_tree_generate", (tiny, heads, [0], 4, [(0,), (0, 0), (0, 0, 0)], g),
                                       ("tree",)),
        "tree-rank-beyond-vocabulary": ("medusa_tree_generate", (tiny, heads, [0], 4, [(r,) for r in range(8)], g),
                                        ("tree",)),
        "negative-temperature": ("medusa_tree_generate", (tiny, heads, [0], 4, [(0,)], g, -1.0), ("temperature",)),
        "empty-prompt": ("medusa_tree_generate", (tiny, heads, [], 4, [(0,)], g), ("prompt",)),
        "negative-max-new-tokens": ("medusa_tree_generate", (tiny, heads, [0], -1, [(0,)], g), ("max_new_tokens",)),
        "target-without-hidden": ("medusa_tree_generate", (MarkovModel([[0.5, 0.5], [0.5, 0.5]]), heads, [0], 4,
                                                           [(0,)], g), ("forward_new_hidden",)),
        "heads-of-another-width": ("medusa_tree_generate", (tiny, MedusaHeads(8, 7, 2), [0], 4, [(0,)], g), ("width",)),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(4)
def test_bad_input_raises_value_error(name):
    function, args, phrases = bad_inputs()[name]
    expect_value_error(fn(function), *args, mentions=phrases, problem=name)

