"""Grading suite for exercise 30-eagle2-tree: eagle2_tree, eagle2_generate.

The tree must be exercise 24's dynamic_tree on the head's own probabilities (the independent
reference recomputes those from row 0 with no cache: tests/reference/ex30_reference.py), grown
with the contract's work on the head: every call is recorded (RecordingEagleHead) and compared, so
a tree that expands every node, computes a level's rows one call per node or keeps the tree rows
fails at that call. The decoder is replayed call for call on the target (one tree pass and one
keep_path per round), token for token and draw for draw; greedy it is the target's greedy
decoding, sampled it is distributed as the target (chi-square).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.heads.eagle import EagleHead, load_eagle_head
from speckata.models.pretrained import char_tokenizer, load_target
from tests.reference.ex22_cases import random_head, sequence_law, tiny_gpt
from tests.reference.ex30_cases import check_run, check_tree
from tests.shared.statistics import pooled_chi_square

EXERCISE = "30-eagle2-tree"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]


def fn(name):
    return learner_function(EXERCISE, name)


@lru_cache(maxsize=1)
def trained():
    return load_target(), load_eagle_head()


def prompt_features(target, text):
    """The target's features of a prompt but its last token, and the tokens one step ahead."""
    ids = torch.tensor(char_tokenizer().encode(text))
    with torch.no_grad():
        return target.hidden_states(ids[None, :-1])[0], ids[1:]


def warm(head, target, features, tokens, rows):
    """Fill the head's cache with its first ``rows`` rows of these features, as a previous round would."""
    head.reset()
    if rows:
        with torch.no_grad():
            head.forward_new(head.fc(torch.cat([target.token_embedding(tokens[:rows]), features[:rows]], dim=-1)))


# Task 1: the tree on the cached head ------------------------------------------------------------------------

@pytest.mark.parametrize("cached", [0, 15])
@pytest.mark.task(1)
def test_tree_on_the_committed_head(cached):
    target, head = trained()
    features, tokens = prompt_features(target, PROMPTS[0])
    warm(head, target, features, tokens, cached)
    check_tree(fn("eagle2_tree"), target, head, features, tokens, 8, 3, 4, cached, "the committed target and head")
    if head.cache_length != features.shape[0]:
        raise GradingFailure(f"After eagle2_tree the head's cache holds {head.cache_length} rows; expected "
                             f"{features.shape[0]}, the rows of the target's true features only.")


@pytest.mark.parametrize("budget, top_k, depth", [(1, 1, 1), (4, 4, 1), (10, 2, 5), (12, 4, 3), (5, 3, 2)])
@pytest.mark.task(1)
def test_shape_is_dynamic_tree_on_the_heads_probabilities(budget, top_k, depth):
    target, head = trained()
    features, tokens = prompt_features(target, PROMPTS[1])
    warm(head, target, features, tokens, features.shape[0] - 1)
    check_tree(fn("eagle2_tree"), target, head, features, tokens, budget, top_k, depth, features.shape[0] - 1,
               "the committed target and head, compared with exercise 24's dynamic_tree")


@pytest.mark.generated
@pytest.mark.task(1)
def test_trees_on_random_heads():
    for index in range(6):
        target, head = tiny_gpt(case_seed(3000 + index), sharpness=3.0), random_head(16, case_seed(3010 + index))
        generator = torch.Generator().manual_seed(case_seed(3020 + index))
        n = 1 + index % 4
        with torch.no_grad():
            ids = torch.randint(0, 7, (n + 1,), generator=generator)
            features = target.hidden_states(ids[None, :-1])[0]
        cached, top_k, depth = index % n, 1 + index % 3, 1 + index % 4
        warm(head, target, features, ids[1:], cached)
        budget = top_k + (depth - 1) * top_k * top_k - index % 2
        check_tree(fn("eagle2_tree"), target, head, features, ids[1:], max(budget, 1), top_k, depth, cached,
                   f"random tiny GPT {index}")


# Task 2: the decoder ----------------------------------------------------------------------------------------

@pytest.mark.task(2)
def test_worked_example_decoding():
    target, head = trained()
    check_run(fn("eagle2_generate"), target, head, char_tokenizer().encode(PROMPTS[0]), 24, 8, 3, 4, 0, 0.0,
              "the worked example (greedy)")


@pytest.mark.parametrize("text", PROMPTS)
@pytest.mark.task(2)
def test_greedy_output_is_the_targets_greedy_decoding(text):
    target, head = trained()
    prompt = char_tokenizer().encode(text)
    got, _ = check_run(fn("eagle2_generate"), target, head, prompt, 40, 10, 3, 5, 1, 0.0,
                       f"the committed target and head, {text!r}, greedy")
    assert got.tokens == autoregressive_generate(target, prompt, 40, torch.Generator(), temperature=0)


@pytest.mark.parametrize("max_new_tokens", [0, 1, 2, 5])
@pytest.mark.task(2)
def test_short_outputs(max_new_tokens):
    target, head = trained()
    check_run(fn("eagle2_generate"), target, head, char_tokenizer().encode(PROMPTS[2]), max_new_tokens, 6, 2, 4, 5,
              1.0, f"{max_new_tokens} new tokens (the first one comes from the prompt's pass)")


@pytest.mark.parametrize("temperature", [1.0, 0.7])
@pytest.mark.generated
@pytest.mark.task(2)
def test_sampled_on_the_committed_models(temperature):
    target, head = trained()
    check_run(fn("eagle2_generate"), target, head, char_tokenizer().encode(PROMPTS[1]), 30, 8, 3, 4,
              case_seed(3030), temperature, "the committed target and head, sampled")


@pytest.mark.generated
@pytest.mark.task(2)
def test_random_tiny_models_match_the_reference():
    for index in range(6):
        target = tiny_gpt(case_seed(3040 + index), vocab=3 + index % 3, sharpness=3.0)
        head = random_head(16, case_seed(3050 + index))
        generator = torch.Generator().manual_seed(case_seed(3060 + index))
        prompt = torch.randint(0, target.vocab_size, (1 + index % 3,), generator=generator).tolist()
        top_k, depth = 1 + index % 3, 1 + index % 3
        budget = min(top_k + index % 2, top_k + (depth - 1) * top_k * top_k)
        try:
            check_run(fn("eagle2_generate"), target, head, prompt, 6 + index, budget, top_k, depth,
                      case_seed(3070 + index), (1.0, 0.0, 1.5)[index % 3], f"random tiny GPT {index}")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 6; the cases before it passed)") from None


STAT_RUNS = 1000
STAT_SEED = 20261230
STAT_LENGTH = 3
STAT_TREE = (4, 2, 2)  # budget, top_k, depth
STAT_ALPHA = 1e-3
STAT_PROMPT = [0]


@lru_cache(maxsize=1)
def stat_models():
    return tiny_gpt(22, vocab=3, sharpness=4.0), random_head(16, 23)  # exercise 22's models


def sequence_chi_square(generate, runs: int = STAT_RUNS, seed: int = STAT_SEED):
    target, head = stat_models()
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, target, head, STAT_PROMPT, STAT_LENGTH, *STAT_TREE, generator,
                              case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    law = sequence_law(target, STAT_PROMPT, STAT_LENGTH)
    statistic, df, pvalue = pooled_chi_square(counts, law, runs)
    return statistic, pvalue, counts, df, law


@pytest.mark.statistical
@pytest.mark.task(2)
def test_sampled_output_is_distributed_as_the_target():
    """Chi-square goodness of fit of whole generated sequences against the target's own law.

    Statistic: Pearson's chi-square of the counts of the 27 sequences of 3 new tokens (a tiny GPT
    over 3 tokens, sharpened, and a random head; budget 4, top_k 2, depth 2) against their exact
    probabilities under the target, those expected fewer than 5 times pooled into one bin. Sample:
    1000 runs from one generator seeded with 20261230 (prompt [0]). Threshold: fail when the p-value
    is below 1e-3. tests/maintainer/test_margins_chi_square.py checks the reference's margin, and
    that a walk sampling a rejected node's token from p instead of what is left, or taking the first
    token greedily, scores far below with a power of at least 0.99 on any seed (0.9998 against the
    resampling from p; 600 runs gave 0.97).
    """
    statistic, pvalue, counts, df, law = sequence_chi_square(fn("eagle2_generate"))
    if pvalue < STAT_ALPHA:
        worst = sorted(law, key=lambda s: -abs(counts[s] - STAT_RUNS * law[s]))[:5]
        rows = "\n".join(f"    {list(s)}  observed {counts[s] / STAT_RUNS:.4f}  target {law[s]:.4f}" for s in worst)
        raise GradingFailure(
            "The sequences eagle2_generate samples are not distributed as the target's.\n"
            f"  runs: {STAT_RUNS}, {STAT_LENGTH} new tokens each, (budget, top_k, depth) = {STAT_TREE}\n"
            f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            f"  the sequences furthest from the target:\n{rows}\n"
            "Common causes: after every candidate of a node is rejected, the token must come from what is left of "
            "p (the rejected candidates removed), not from p; the first token sampled from the prompt pass's last row.")


# Task 3: bad input ------------------------------------------------------------------------------------------

def bad_inputs():
    tiny, head, g = tiny_gpt(0), random_head(16, 0), torch.Generator()
    full = random_head(16, 0)
    warm(full, tiny, torch.zeros(3, 16), torch.ones(3, dtype=torch.int64), 3)
    feats, toks = torch.zeros(3, 16), torch.tensor([1, 2, 3])
    return {
        "cache-as-long-as-the-features": ("eagle2_tree", (tiny, full, feats, toks, 4, 2, 2), ("cache",)),
        "tree-budget-zero": ("eagle2_tree", (tiny, head, feats, toks, 0, 2, 2), ("budget",)),
        "tree-budget-too-large": ("eagle2_tree", (tiny, head, feats, toks, 7, 2, 2), ("budget",)),
        "tree-top-k-zero": ("eagle2_tree", (tiny, head, feats, toks, 1, 0, 2), ("top_k",)),
        "tree-top-k-above-vocabulary": ("eagle2_tree", (tiny, head, feats, toks, 1, 8, 2), ("top_k",)),
        "tree-depth-zero": ("eagle2_tree", (tiny, head, feats, toks, 1, 2, 0), ("depth",)),
        "tree-features-batched": ("eagle2_tree", (tiny, head, torch.zeros(2, 3, 16), torch.ones(2, 3,
                                  dtype=torch.int64), 2, 2, 2), ("features",)),
        "tree-features-wrong-width": ("eagle2_tree", (tiny, head, torch.zeros(3, 8), toks, 2, 2, 2), ("width",)),
        "tree-tokens-wrong-shape": ("eagle2_tree", (tiny, head, feats, torch.tensor([1, 2]), 2, 2, 2), ("tokens",)),
        "budget-zero": ("eagle2_generate", (tiny, head, [0], 4, 0, 2, 2, g), ("budget",)),
        "top-k-above-vocabulary": ("eagle2_generate", (tiny, head, [0], 4, 2, 8, 2, g), ("top_k",)),
        "depth-zero": ("eagle2_generate", (tiny, head, [0], 4, 2, 2, 0, g), ("depth",)),
        "head-of-another-width": ("eagle2_generate", (tiny, EagleHead(8, inner=8, mlp_width=8), [0], 4, 2, 2, 2, g),
                                  ("width",)),
        "empty-prompt": ("eagle2_generate", (tiny, head, [], 4, 2, 2, 2, g), ("prompt",)),
        "negative-max-new-tokens": ("eagle2_generate", (tiny, head, [0], -1, 2, 2, 2, g), ("max_new_tokens",)),
        "negative-temperature": ("eagle2_generate", (tiny, head, [0], 4, 2, 2, 2, g, -1.0), ("temperature",)),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(3)
def test_bad_input_raises_value_error(name):
    function, args, phrases = bad_inputs()[name]
    expect_value_error(fn(function), *args, mentions=phrases, problem=name)
