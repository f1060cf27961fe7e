"""EAGLE-2's tree on SmolLM2-135M, sampled: the walk over the head's real tree emits SmolLM2's p.

The sampling half of test_real_eagle2.py (same extra, same skip and fail rules, the same ``real``
fixture). One round of ``speckata.real.eagle2_tree`` is set up as the decoder sets it up: the prompt
and its first token (greedy), the head's dynamic tree (budget 8, top_k 3, depth 3) drafted from the
target's true features, and ONE tree pass of the target over the pending token and the tree. Then
exercise 20's ``walk`` with the deterministic top-k rule (the graded folder's, ``--target solutions``)
runs 20,000 times on those rows of p, each row kept to its 256 likeliest tokens plus the tree's
tokens and renormalised (as in test_real_model_sampling.py: seconds, not minutes).

Two statistics, each Pearson's chi-square over p's 20 likeliest tokens plus one bin for all others
(20 degrees of freedom), failing below p-value 1e-3:

- the round's first token against the root's p (the row after the pending token);
- the round's second token, in the runs that kept the root's first child, against that child's p
  (the row the tree pass computed for it): the tree's deeper levels are exact too.

Each is shown to have power at this position: a walk that resamples a rejection from p itself
(the rejected candidates left in) fails the first; a walk that keeps the draft's ranking (always
the first candidate) fails the second.
"""

from __future__ import annotations

import numpy as np

from tests.maintainer.real_model_support import ALPHA, RUNS, SEED, chi_square, likeliest, restricted
from tests.maintainer.test_real_eagle2 import prompt_ids, real  # noqa: F401  (the fixture, loaded once here)

BUDGET, TOP_K, DEPTH = 8, 3, 3
PROMPT = 3  # "When ...": the head's first candidate after the greedy first word has p about 0.4 there, so
# thousands of the 20,000 runs go below the root (after the other prompts' first words the head often
# misses: its candidates after "The" have p below 0.01, and nothing below the root could be tested)


def one_round(real):  # noqa: F811
    """(shape, tree tokens, rows): the head's tree after the prompt and its first token, and the
    target's p at the root (-1) and at every node, restricted to the columns they share."""
    from speckata.decoding.results import SpeculativeResult
    from speckata.decoding.sampling import next_token_probabilities
    from speckata.grading import learner_function
    from speckata.real.eagle2_tree import draft_tree
    from speckata.real.eagle_head import HeadRunner, first_token

    torch, target = real["torch"], real["target"]
    mask_of = learner_function("18-tree-attention-mask", "tree_attention_mask")
    positions_of = learner_function("18-tree-attention-mask", "tree_position_ids")
    sequence = prompt_ids(real, PROMPT)
    pending = first_token(target, sequence, torch.Generator().manual_seed(SEED), 0.0, SpeculativeResult())
    runner = HeadRunner(real["head"], target)
    shape, tokens, _ = draft_tree(runner, pending, sequence[1:], BUDGET, TOP_K, DEPTH)
    fed, start = sequence[target.cache_length:], target.cache_length
    assert len(fed) == 1, "after the prompt's pass only its first token is pending"
    parents = [-1] + [0 if parent == -1 else 1 + parent for parent in shape.parents]
    hidden = target.forward_tree_hidden(fed + tokens, mask_of(parents, start), positions_of(parents, start))
    p = next_token_probabilities(torch.nn.functional.linear(hidden, real["lean"].output), 1.0)
    columns = torch.unique(torch.cat([likeliest(p), torch.tensor(tokens)]))
    small = restricted(p, columns)
    index = {int(token): i for i, token in enumerate(columns)}
    rows = {node: small[node + 1] for node in range(-1, len(shape))}
    return shape, [index[token] for token in tokens], rows


def emitted(walk, shape, tokens, rows, seed=SEED) -> list[list[int]]:
    """The tokens of RUNS walks of one generator: the accepted path's tokens, then the last token."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    runs = []
    for _ in range(RUNS):
        path, extra = walk(shape, tokens, rows, {}, generator, "top_k")
        runs.append([tokens[node] for node in path] + [extra])
    return runs


def second_tokens(runs, first_child_token) -> np.ndarray:
    return np.array([run[1] for run in runs if run[0] == first_child_token and len(run) > 1])


def test_the_walk_over_smollm2s_eagle2_tree_emits_p_at_the_root_and_below(real):  # noqa: F811
    from speckata.grading import learner_function

    shape, tokens, rows = one_round(real)
    assert len(shape) == BUDGET and max(len(path) for path in shape.paths) >= 2, "a tree of two levels or more"
    walk = learner_function("20-tree-verification", "walk")
    runs = emitted(walk, shape, tokens, rows)
    statistic, pvalue = chi_square(rows[-1].numpy(), np.array([run[0] for run in runs]))
    assert pvalue > ALPHA, f"first token: chi-square {statistic:.1f} (20 df), p-value {pvalue:.2e}"
    child = shape.children(-1)[0]
    seconds = second_tokens(runs, tokens[child])
    assert len(seconds) > 2_000, f"only {len(seconds)} runs kept the root's first child: too few to test below it"
    statistic, pvalue = chi_square(rows[child].numpy(), seconds)
    assert pvalue > ALPHA, (f"second token after the first child ({len(seconds)} runs): chi-square {statistic:.1f} "
                            f"(20 df), p-value {pvalue:.2e}")


def test_both_statistics_reject_a_biased_walk_at_this_position(real):  # noqa: F811
    """The power shown at the same tree and rows: each biased walk fails its statistic."""
    from speckata.decoding.sampling import draw_uniform, sample_token

    shape, tokens, rows = one_round(real)

    def resample_from_p(shape, tokens, p, q, generator, children):
        """Tries the root's candidates in order, each with p(x), then resamples from p itself."""
        for kid in shape.children(-1):
            if draw_uniform(generator) < float(p[-1][tokens[kid]]):
                return [kid], sample_token(p[kid], generator)
        return [], sample_token(p[-1], generator)

    runs = emitted(resample_from_p, shape, tokens, rows)
    _, pvalue = chi_square(rows[-1].numpy(), np.array([run[0] for run in runs]))
    assert pvalue < ALPHA, f"a walk resampling from p itself passes at the root (p-value {pvalue:.2e}): no power"

    def first_candidate_below(shape, tokens, p, q, generator, children):
        """Exact at the root; below it, always keeps the child's first candidate (the draft's ranking)."""
        from speckata.grading import learner_function

        path, extra = learner_function("20-tree-verification", "walk")(shape, tokens, p, q, generator, children)
        kids = shape.children(path[0]) if path else []
        return ([path[0], kids[0]], extra) if kids else (path, extra)

    child = shape.children(-1)[0]
    runs = emitted(first_candidate_below, shape, tokens, rows)
    _, pvalue = chi_square(rows[child].numpy(), second_tokens(runs, tokens[child]))
    assert pvalue < ALPHA, f"a walk keeping the draft's ranking below the root passes (p-value {pvalue:.2e}): no power"
