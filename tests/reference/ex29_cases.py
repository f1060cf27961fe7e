"""Exercise 29-medusa-tree: the suite's models, comparisons and chi-square (tests/test_29_medusa_tree.py uses them).

Each check runs the independent reference (tests/reference/ex29_reference.py) on the same case,
hands the learner a recorder around the target with a stale cache (the contract starts with
reset()) and a generator seeded alike, and reports the first difference for a person to read.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import torch

from speckata.decoding.tree_shapes import TreeShape
from speckata.grading import GradingFailure, call_learner
from speckata.grading.events import lead_with_difference
from speckata.heads.medusa import RecordingHiddenModel
from tests.reference.ex20_report import check_calls, raised_difference, walk_detail
from tests.reference.ex21_cases import random_heads
from tests.reference.ex22_cases import sequence_law, tiny_gpt
from tests.reference.ex29_reference import reference_accuracies, reference_generate, reference_tree
from tests.reference.result_tail import check_counters
from tests.reference.round_events import lead_with_tree_events, round_tokens
from tests.shared.statistics import pooled_chi_square

CALLS = ("hidden", "forward", "tree", "keep_path", "crop")


def stale(target, prompt, generator=None) -> RecordingHiddenModel:
    target.reset()
    target.forward_new_hidden([int(prompt[0])])  # a stale cache: the contract starts with reset()
    return RecordingHiddenModel(target, generator)


def check_accuracies(head_accuracies, target, heads, ids, top, what):
    ids = [int(i) for i in ids]
    case = f"case: {what}, {heads.num_heads} heads, {len(ids)} ids {ids[:12]}.., top {top}"
    expected, calls = reference_accuracies(target, heads, ids, top)
    recorder = stale(target, ids)
    got = call_learner(head_accuracies, recorder, heads, torch.tensor(ids), top, case=case)
    def shown(log):  # a reset's cache length before it is the stale cache's, whatever it was
        return [c[:1] if c[0] == "reset" else c for c in log if c[0] in CALLS + ("reset",)]
    if shown(recorder.calls) != shown(calls):
        raise GradingFailure(f"head_accuracies made the calls {[c[0] for c in shown(recorder.calls)]} on the target; the contract "
                             f"makes reset() then ONE forward_new_hidden(ids).\n{case}")
    if not isinstance(got, torch.Tensor) or got.dtype != torch.float64 or tuple(got.shape) != tuple(expected.shape):
        raise GradingFailure(f"head_accuracies must return a float64 tensor of shape {tuple(expected.shape)} (K, top); "
                             f"it returned {type(got).__name__} {getattr(got, 'dtype', '')} "
                             f"{tuple(getattr(got, 'shape', ()))}.\n{case}")
    if not torch.allclose(got, expected, rtol=0, atol=1e-12):
        k, r = divmod(int((got - expected).abs().argmax()), top)
        raise GradingFailure(f"head_accuracies[{k}, {r}] is {float(got[k, r]):.6f}; expected {float(expected[k, r]):.6f}: "
                             f"the share of positions t (t + {k + 2} < {len(ids)}) where head {k}'s rank-{r} token is "
                             f"ids[t + {k + 2}].\nexpected {expected.numpy().round(4).tolist()}\n{case}")


def check_tree(medusa_tree, table, budget, what):
    case = f"case: {what}: medusa_tree({torch.as_tensor(table).tolist()}, {budget})"
    got = call_learner(medusa_tree, table, budget, case=case)
    order = reference_tree(table, budget)
    expected = sorted(order, key=lambda path: (len(path), path))
    if not isinstance(got, TreeShape):
        raise GradingFailure(f"medusa_tree must return a speckata.decoding.tree_shapes.TreeShape; it returned "
                             f"{type(got).__name__}.\n{case}")
    if got.paths != expected:
        extra, missing = sorted(set(got.paths) - set(expected)), sorted(set(expected) - set(got.paths))
        raise GradingFailure(f"medusa_tree chose {got.paths}; expected {expected}.\n  paths you added that the contract "
                             f"does not: {extra}; paths it adds that you do not: {missing}\n  the contract adds them in "
                             f"this order (the frontier's most valuable first; ties: shallower, then smaller ranks): "
                             f"{order}\n{case}")
    return got


def check_run(medusa_tree_generate, target, heads, prompt, max_new_tokens, tree, seed, temperature, what):
    tree = list(getattr(tree, "paths", tree))
    case = (f"case: {what}, prompt {list(prompt)[:10]}, max_new_tokens {max_new_tokens}, tree {tree}, seed {seed}, "
            f"temperature {temperature}")
    theirs = torch.Generator().manual_seed(seed)
    expected = reference_generate(target, heads, list(prompt), max_new_tokens, tree, theirs, temperature)
    mine = torch.Generator().manual_seed(seed)
    recorder = stale(target, prompt, mine)
    try:
        got = call_learner(medusa_tree_generate, recorder, heads, list(prompt), max_new_tokens, tree, mine, temperature,
                           case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        first = raised_difference({"target": recorder}, {"target": expected.target}, CALLS)
        raise lead_with_difference(failure, "medusa_tree_generate", first) from None
    lead_with_tree_events("medusa_tree_generate", [recorder], [expected.target], (theirs, mine), CALLS,
                          walk_detail(expected, case), round_tokens(expected, got, prompt_token=True))
    check_calls("target", recorder, expected.target, CALLS, case, expected, got, function="medusa_tree_generate")
    tokens = list(getattr(got, "tokens", []))
    if tokens != expected.tokens or not all(type(t) is int for t in tokens):
        raise GradingFailure(f"medusa_tree_generate returned tokens {tokens}; expected {expected.tokens} (plain ints).\n"
                             f"{case}")
    check_counters(got, expected, case)
    if not torch.equal(mine.get_state(), theirs.get_state()):
        raise GradingFailure(f"The tokens and calls match but the generator was drawn another number of times than the "
                             f"contract says (one sample for the first token; per round verify_top_k's draws along "
                             f"the walk, or the bonus token's sample).\n{case}")
    return got, recorder


STAT_RUNS = 800
STAT_SEED = 20261229
STAT_LENGTH = 3
STAT_TREE = [(0,), (1,), (0, 0), (0, 1), (1, 0)]
STAT_ALPHA = 1e-3
STAT_PROMPT = [0]


@lru_cache(maxsize=1)
def stat_models():
    target = tiny_gpt(29, vocab=3, sharpness=4.0)
    return target, random_heads(target, 2, seed=30, scale=1.0)


def sequence_chi_square(generate, runs: int = STAT_RUNS, seed: int = STAT_SEED):
    """(statistic, p-value, counts, degrees of freedom, the target's law) of ``runs`` sampled sequences."""
    target, heads = stat_models()
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, target, heads, STAT_PROMPT, STAT_LENGTH, STAT_TREE, generator, 1.0,
                              case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    law = sequence_law(target, STAT_PROMPT, STAT_LENGTH)
    statistic, df, pvalue = pooled_chi_square(counts, law, runs)
    return statistic, pvalue, counts, df, law
