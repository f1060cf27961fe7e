"""Grading suite for exercise 20-tree-verification: tree_speculative_generate(target, draft, prompt_ids, ...).

Every case wraps both models in a RecordingModel, runs the learner's decoder with a seeded torch
generator, and compares with tests/reference/ex20_reference.py (exercises 15, 16 and 18's
references, on recorders of its own): the tokens, the statistics, every call each model received
(ids, masks, positions, kept nodes) and the generator's state afterwards. Markov toys make the
truth exact (the chi-square test), the committed trained models make it real (greedy decoding).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.decoding.tree_shapes import chain, top_k_tree
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.events import lead_with_difference
from speckata.grading.streams import case_seed
from speckata.models.markov import MarkovModel, random_markov_model
from speckata.models.pretrained import char_tokenizer, load_draft, load_target
from speckata.models.recording import RecordingModel
from tests.reference.ex20_reference import reference_generate
from tests.reference.ex20_report import KINDS, check_calls, raised_difference, walk_detail
from tests.reference.round_events import lead_with_tree_events, round_tokens
from tests.shared.statistics import chi_square_sf

EXERCISE = "20-tree-verification"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
EXAMPLE_TARGET = [[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]
EXAMPLE_DRAFT = [[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]
UNEVEN = [(0,), (1,), (2,), (0, 0), (0, 1), (1, 0), (0, 0, 0), (0, 0, 0, 0)]  # wide at the top, a long first branch
CODE = "def speculative_step(p, q, draft, rng):\n    "


def tree_speculative_generate():
    return learner_function(EXERCISE, "tree_speculative_generate")


@lru_cache(maxsize=1)
def trained():
    return load_target(), load_draft()


def run(target, draft, prompt, max_new_tokens, tree, seed, temperature=1.0, children="top_k", what=""):
    """The learner's run beside the reference's; a round's draws or tokens that differ are named first."""
    tree = list(getattr(tree, "paths", tree))  # the learner is handed plain rank paths
    case = (f"case: {what}, prompt {list(prompt)[:10]}, max_new_tokens {max_new_tokens}, tree {list(tree)}, "
            f"seed {seed}, temperature {temperature}, children {children!r}")
    ours = torch.Generator().manual_seed(seed)
    expected = reference_generate(target, draft, list(prompt), max_new_tokens, tree, ours, temperature, children)
    target.reset()
    target.forward_new([prompt[0]])  # stale caches: the contract starts with reset()
    generator = torch.Generator().manual_seed(seed)
    rec_target, rec_draft = RecordingModel(target, generator), RecordingModel(draft, generator)
    try:
        got = call_learner(tree_speculative_generate(), rec_target, rec_draft, list(prompt), max_new_tokens, tree,
                           generator, temperature, children, case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        first = raised_difference({"target": rec_target, "draft": rec_draft}, {"target": expected.target, "draft": expected.draft})
        raise lead_with_difference(failure, "tree_speculative_generate", first) from None
    lead_with_tree_events("tree_speculative_generate", [rec_target, rec_draft], [expected.target, expected.draft],
                          (ours, generator), KINDS, walk_detail(expected, case), round_tokens(expected, got))
    return got, rec_target, rec_draft, generator, expected, ours, case


def check_tokens(got, tokens, case, what="the reference's"):
    mine = list(getattr(got, "tokens", []))
    if mine != tokens:
        at = next((i for i, (a, b) in enumerate(zip(mine, tokens)) if a != b), min(len(mine), len(tokens)))
        raise GradingFailure(f"The tokens differ from {what} at new token {at}: expected {tokens[at:at + 6]}, "
                             f"got {mine[at:at + 6]}.\n{case}")
    if not all(type(t) is int for t in got.tokens):
        raise GradingFailure(f"tokens must be plain Python ints (use .tolist() or int()).\n{case}")


def check_everything(got, rec_target, rec_draft, generator, expected, ours, case):
    check_calls("target", rec_target, expected.target, ("tree", "forward", "keep_path", "crop"), case, expected, got)
    check_calls("draft", rec_draft, expected.draft, ("tree", "forward", "keep_path", "crop"), case, expected, got,
                rec_target)
    check_tokens(got, expected.tokens, case)
    stats = ("accepted_per_pass", "drafted_per_pass", "target_passes", "draft_passes")
    for name in stats:
        if getattr(got, name, None) != getattr(expected, name):
            raise GradingFailure(f"{name} is {getattr(got, name, None)}; expected {getattr(expected, name)}.\n{case}")
    if not torch.equal(generator.get_state(), ours.get_state()):
        raise GradingFailure(f"The tokens and calls match but the generator was drawn a different number of times "
                             f"than the contract says (one sample per sampled child, one uniform per tried child, "
                             f"one sample to end each round).\n{case}")


def markov_pair(seed, vocab=4, order=2, sharpness=1.5):
    return random_markov_model(vocab, order, seed, sharpness), random_markov_model(vocab, order, seed + 50, sharpness)


# Task 1: the worked example ----------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example():
    got, rec_target, *_ = run(MarkovModel(EXAMPLE_TARGET), MarkovModel(EXAMPLE_DRAFT), [0], 4, [(0,), (1,)], 2,
                              what="the worked example")
    check_tokens(got, [2, 1, 1, 0], "case: the worked example", "the text's")
    trees = [call[1] for call in rec_target.calls if call[0] == "tree"]
    if trees != [(0, 1, 2), (1, 2, 0), (1,)] or got.accepted_per_pass != [1, 0, 0]:
        raise GradingFailure(f"The worked example feeds the target (0, 1, 2), (1, 2, 0), (1,) in three tree passes "
                             f"and accepts [1, 0, 0]; got {trees} and {got.accepted_per_pass}.")


# Task 2: temperature 0 is the target's greedy decoding ----------------------------------------------

@pytest.mark.parametrize("children", ["top_k", "sampled"])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.task(2)
def test_greedy_on_markov_chains_is_the_targets_greedy_decoding(seed, children):
    target, draft = markov_pair(seed, sharpness=3.0)
    got, rec_target, _, _, expected, _, case = run(target, draft, [seed % 4, 1], 16, top_k_tree([2, 2, 1]), seed, 0.0,
                                                  children, "greedy chains")
    check_calls("target", rec_target, expected.target, ("tree", "forward", "keep_path"), case, expected, got)
    greedy = autoregressive_generate(target, [seed % 4, 1], 16, torch.Generator(), temperature=0)
    check_tokens(got, greedy, f"greedy on order-2 chains, seed {seed}, children {children!r}", "greedy decoding's")


@pytest.mark.parametrize("children", ["top_k", "sampled"])
@pytest.mark.task(2)
def test_greedy_on_the_trained_models_is_the_targets_greedy_decoding(children):
    target, draft = trained()
    prompt = char_tokenizer().encode(CODE)
    got, rec_target, _, _, expected, _, case = run(target, draft, prompt, 40, UNEVEN, 1, 0.0, children, "the trained models")
    check_calls("target", rec_target, expected.target, ("tree", "forward", "keep_path"), case, expected, got)
    greedy = autoregressive_generate(target, prompt, 40, torch.Generator(), temperature=0)
    check_tokens(got, greedy, f"greedy on the trained models, children {children!r}", "greedy decoding's")


# Task 3: one target pass per round: the tree, its mask and positions ------------------------------

@pytest.mark.parametrize("children", ["top_k", "sampled"])
@pytest.mark.task(3)
def test_target_tree_passes_follow_the_contract(children):
    got, rec_target, rec_draft, generator, expected, ours, case = run(*markov_pair(3), [1, 2, 3], 12, UNEVEN, 7, 1.0,
                                                                      children, "order-2 chains")
    check_calls("target", rec_target, expected.target, ("tree", "forward"), case, expected, got)


@pytest.mark.task(3)
def test_target_tree_passes_on_the_trained_models():
    target, draft = trained()
    got, rec_target, rec_draft, generator, expected, ours, case = run(target, draft, char_tokenizer().encode(CODE), 24,
                                                                      top_k_tree([3, 2]), 4, 1.0, "top_k", "trained")
    check_calls("target", rec_target, expected.target, ("tree", "forward"), case, expected, got)


# Task 4: the draft builds the tree a level per pass ----------------------------------------------

@pytest.mark.parametrize("children", ["top_k", "sampled"])
@pytest.mark.task(4)
def test_draft_builds_the_tree_a_level_per_pass(children):
    got, rec_target, rec_draft, generator, expected, ours, case = run(*markov_pair(5), [0, 3], 12, UNEVEN, 11, 1.0,
                                                                      children, "order-2 chains")
    check_calls("draft", rec_draft, expected.draft, ("tree", "forward"), case, expected, got, rec_target)


TIED_DRAFT = [[0.1, 0.3, 0.3, 0.3], [0.25] * 4, [0.4, 0.2, 0.2, 0.2], [0.3, 0.3, 0.3, 0.1]]  # ties in every row


@pytest.mark.task(4)
def test_tied_draft_logits_rank_the_lower_token_first():
    target = random_markov_model(4, 1, seed=3, sharpness=1.5)
    got, rec_target, rec_draft, generator, expected, ours, case = run(target, MarkovModel(TIED_DRAFT), [0], 10,
                                                                      top_k_tree([3, 2]), 5, 1.0, "top_k", "tied logits")
    try:
        check_calls("target", rec_target, expected.target, ("tree", "forward"), case, expected, got)
    except GradingFailure as failure:
        raise GradingFailure(f"Children ranked among tied draft logits come in the contract's order: "
                             f"torch.argsort(row, descending=True, stable=True), the lower token id first among equal "
                             f"logits (torch.topk promises no order among ties).\n{failure}") from None


# Task 5: only the accepted path stays in the caches ----------------------------------------------

@pytest.mark.parametrize("children", ["top_k", "sampled"])
@pytest.mark.task(5)
def test_only_the_accepted_path_is_kept(children):
    got, rec_target, rec_draft, generator, expected, ours, case = run(*markov_pair(8), [2], 14, top_k_tree([2, 2, 2]),
                                                                      3, 1.0, children, "order-2 chains")
    check_calls("target", rec_target, expected.target, ("keep_path", "crop"), case, expected, got)
    check_calls("draft", rec_draft, expected.draft, ("keep_path", "crop"), case, expected, got, rec_target)


# Task 6: exact replay against the reference --------------------------------------------------------

def random_cases():
    trees = [chain(3), top_k_tree([2, 2]), top_k_tree([3, 1, 1]), UNEVEN, [(0,)], [(0,), (1,), (2,), (3,)]]
    for index in range(16):
        yield (index, trees[index % len(trees)], [1.0, 0.7, 1.3, 0.0][index % 4], ("top_k", "sampled")[index % 2])


@pytest.mark.generated
@pytest.mark.task(6)
def test_random_markov_cases_match_the_reference():
    for index, tree, temperature, children in random_cases():
        target, draft = markov_pair(case_seed(100 + index), vocab=3 + index % 3, order=1 + index % 2)
        try:
            check_everything(*run(target, draft, [index % 3], 10 + index % 5, tree, case_seed(index), temperature, children,
                                  f"random chains {index}"))
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 16; the cases before it passed)") from None


@pytest.mark.generated
@pytest.mark.parametrize("children", ["top_k", "sampled"])
@pytest.mark.task(6)
def test_trained_models_match_the_reference(children):
    target, draft = trained()
    check_everything(*run(target, draft, char_tokenizer().encode(CODE), 30, UNEVEN, case_seed(5), 1.0, children, "trained"))


# Task 7: the output is distributed as the target's ----------------------------------------------

STAT_RUNS = 1000
STAT_SEEDS = {"top_k": 20261201, "sampled": 20261202}
STAT_LENGTH = 3  # new tokens per run: 27 sequences over 3 tokens
STAT_TREE = [(0,), (1,), (0, 0), (0, 1), (1, 0)]
STAT_ALPHA = 1e-3


def stat_chains() -> tuple[MarkovModel, MarkovModel]:
    return random_markov_model(3, 2, seed=1, sharpness=1.5), random_markov_model(3, 2, seed=2, sharpness=1.5)


def sequence_chi_square(generate, children: str, runs: int = STAT_RUNS) -> tuple[float, float, Counter]:
    target, draft = stat_chains()
    generator = torch.Generator().manual_seed(STAT_SEEDS[children])
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, target, draft, [0], STAT_LENGTH, STAT_TREE, generator, 1.0, children,
                              case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    statistic = 0.0
    for sequence in target.all_continuations(STAT_LENGTH):
        expected = runs * target.sequence_probability([0], sequence)
        statistic += (counts[sequence] - expected) ** 2 / expected
    return statistic, chi_square_sf(statistic, target.vocab_size ** STAT_LENGTH - 1), counts


@pytest.mark.statistical
@pytest.mark.parametrize("children", ["top_k", "sampled"])
@pytest.mark.task(7)
def test_generated_sequences_are_distributed_as_the_target(children):
    """Chi-square goodness of fit of whole generated sequences against the target chain.

    Statistic: Pearson's chi-square over all 27 sequences of 3 new tokens (26 degrees of freedom),
    exact expected counts from the order-2 target chain over 3 tokens, 1,000 runs from one
    generator seeded with 20261201 (top_k) or 20261202 (sampled), the five-node tree
    [(0,), (1,), (0, 0), (0, 1), (1, 0)], prompt [0]. Threshold: fail when the p-value is below
    1e-3. The reference's p-values and the biased mutants' are checked in
    tests/maintainer/test_margins_chi_square.py.
    """
    statistic, pvalue, counts = sequence_chi_square(tree_speculative_generate(), children)
    if pvalue < STAT_ALPHA:
        target, _ = stat_chains()
        worst = sorted(target.all_continuations(STAT_LENGTH),
                       key=lambda s: -abs(counts[s] - STAT_RUNS * target.sequence_probability([0], s)))[:5]
        rows = "\n".join(f"    {list(s)}  observed {counts[s] / STAT_RUNS:.4f}  target {target.sequence_probability([0], s):.4f}"
                         for s in worst)
        raise GradingFailure(
            f"The sequences tree_speculative_generate produces (children {children!r}) are not distributed as the target's.\n"
            f"  runs: {STAT_RUNS}, 3 new tokens each, tree {STAT_TREE}, toy order-2 chains over 3 tokens\n"
            f"  chi-square = {statistic:.1f} (26 degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            f"  the sequences furthest from the target:\n{rows}\n"
            "Common causes: the residual not updated after a rejected sibling; a rejected branch left in a cache; "
            "a mask that lets a node see its siblings.")


# Task 8: bad input ---------------------------------------------------------------------------------

def bad_inputs():
    target, draft = markov_pair(0)
    wider = random_markov_model(5, 1, seed=0)
    return {
        "empty-prompt": ((target, draft, [], 5, [(0,)]), ("prompt",)),
        "negative-max-new-tokens": ((target, draft, [0], -1, [(0,)]), ("max_new_tokens",)),
        "vocabulary-mismatch": ((target, wider, [0], 5, [(0,)]), ("vocabulary",)),
        "empty-tree": ((target, draft, [0], 5, []), ("tree",)),
        "missing-parent": ((target, draft, [0], 5, [(0,), (1, 0)]), ("tree",)),
        "rank-gap": ((target, draft, [0], 5, [(0,), (2,)]), ("tree",)),
        "negative-temperature": ((target, draft, [0], 5, [(0,)]), ("temperature",), -1.0),
        "unknown-children": ((target, draft, [0], 5, [(0,)]), ("children",), 1.0, "beam"),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(8)
def test_bad_input_raises_value_error(name):
    args, phrases, *extra = bad_inputs()[name]
    temperature, children = (extra + [1.0, "top_k"][len(extra):])[:2]
    expect_value_error(tree_speculative_generate(), *args, torch.Generator().manual_seed(0), temperature, children,
                       mentions=phrases, problem=name)
