"""Exercise 29-medusa-tree: Medusa's heads read as a tree, verified in one target pass (torch).

Exercise 21 verified one chain per pass: each head's top-1 guess. Medusa itself (Cai et al.,
2024) verifies a TREE: each head's top few tokens, combined, pruned to a budget of nodes chosen by
how often each head's rank-r token is right (its "sparse tree", medusa_choices), in ONE target
pass with exercise 18's mask, walked with exercise 16's rule. Theory: theory/29-medusa-tree.md.
Notebook: notebooks/29-medusa-tree.ipynb.

Given (speckata.models.gpt, medusa, medusa_tree_checks, tree_shapes, sampling):
    target.forward_new_hidden(ids) -> (hidden (n, width), logits (n, V))   as in exercise 21.
    target.forward_tree_hidden(ids, mask, positions) -> (hidden (n, width), logits (n, V))
        exercise 20's forward_tree with the hidden states too: ONE pass over n tree tokens.
    target.keep_path(nodes)   keep the cache before the pending tree, then tree nodes `nodes`.
    TreeShape(paths): .paths (sorted by depth, then ranks), .parents, .depths, .children(node)
        (node -1: the newest token's), .truncated(d). A shape holds every path's parent, and a
        node's children have ranks 0 .. c-1.
    check_accuracy_inputs, check_tree_budget, check_medusa_tree_inputs: the ValueErrors below.
Ranks: a head's rank-r token is torch.argsort(logits, descending=True, stable=True)[r] (among
equal logits the lower token id first). Head k at position t guesses the token k + 2 ahead.

Task 1: how often each head's rank-r token is right
    head_accuracies(target, heads, ids, top) -> float64 tensor (K, top)
    ids, top = check_accuracy_inputs(target, heads, ids, top); target.reset(); ONE call
    hidden, _ = target.forward_new_hidden(ids); your exercise 21 medusa_logits(heads, hidden).
    accuracies[k, r] = the share of positions t (those with t + k + 2 < len(ids)) at which head
    k's rank-r token at t equals ids[t + k + 2].

Task 2: the sparse tree
    medusa_tree(accuracies, budget) -> TreeShape of `budget` rank paths
    table, budget = check_tree_budget(accuracies, budget). A path (r_1, .., r_d), d <= K, r_i <
    top, is worth the product table[0, r_1] * table[1, r_2] * .. * table[d-1, r_d] (a float64,
    multiplied from head 0 on: the parent's product times its own share). Grow the tree from
    nothing, `budget` times: among the paths not in it whose parent is in it (or d = 1) and whose
    previous sibling (the same path with rank r_d - 1) is in it (or r_d = 0), add the one worth
    most; ties: the shallower first, then the smaller ranks (tuple order). When each row of the
    table falls with the rank (a head's rank-0 token right most often, and so on) this is exactly
    the `budget` paths worth most (the same tie rule), and that set holds every path's parent:
    a share is at most 1, so a path is worth at most its parent, and wins ties by being shallower.

Task 3: decoding with the tree
    medusa_tree_generate(target, heads, prompt_ids, max_new_tokens, tree, generator,
                         temperature=1.0) -> SpeculativeResult
    sequence, full = check_medusa_tree_inputs(target, heads, prompt_ids, max_new_tokens, tree,
    temperature); target.reset(); with max_new_tokens 0 return an empty result with no pass.
    p(row) below is next_token_probabilities(row, temperature).
      0. hidden, logits = target.forward_new_hidden(sequence); h = hidden[-1]; the first token is
         sample_token(p(logits[-1]), generator). Append it (to the tokens and the sequence).
    Then, until max_new_tokens tokens are out, rounds:
      1. shape = full.truncated(max_new_tokens - (tokens so far) - 1): no round overshoots.
      2. head_logits = medusa_logits(heads, h) (K, V); the node with rank path (r_1, .., r_d)
         gets head d-1's rank-r_d token (Medusa's tree: every parent at depth d-1 gets the same
         children). Nodes in shape order: node j is shape.paths[j].
      3. ONE pass: hidden, logits = target.forward_tree_hidden([newest token] + node tokens,
         mask, positions), mask and positions from your exercise 18 with parents [-1] +
         [shape.parents[j] + 1 for each node j] and prefix length target.cache_length. Row 0 is
         the newest token (the only one the cache lacks), row 1 + j node j.
      4. Walk from the newest token. At a node whose children sit at depth d (d = 1 for the
         newest token's), x = your exercise 16 verify_top_k(p(its row).numpy(), [its children's
         tokens in rank order], p(head_logits[d-1]).numpy(), GeneratorRNG(generator)) (q: head
         d-1's distribution; the rule does not read it). If x is one of the children's tokens,
         that child is accepted: go on from it. Otherwise x is the correction and the round
         ends. A node with no children ends the round with the bonus token
         sample_token(p(its row), generator).
         (If verify_top_k's fallback samples a rejected child's token, that child is accepted
         all the same: its token follows from p either way, so the output stays exact.)
      5. target.keep_path([0] + [1 + j for each accepted node j]); h = hidden at the last
         accepted node's row (row 0 if none); append the accepted tokens and the last token.
    Result: tokens (plain ints), per round accepted_per_pass (accepted nodes) and
    drafted_per_pass (nodes in the round's shape), target_passes (every pass, the prompt's
    included), draft_passes 0 (the heads ride on the target's passes).

Random draws, in this order: one sample_token for the first token; per round, verify_top_k's
draws along the walk (one per tried child, and its final sample when every child is rejected),
or the bonus token's sample_token. The same at every temperature: at temperature 0 p is one-hot,
the child equal to the target's argmax is accepted, and the output is the target's greedy
decoding; at T > 0 it is distributed as the target's own sampling.

Import exercises 16, 18 and 21 at the top as this file does (the grader imports your exercise
files from the folder it grades: solve them first).

Task 4: bad input
    ValueError naming the problem: "ids", "top" (check_accuracy_inputs), "accuracies" (not a
    (K, top) table of shares in [0, 1], or NaN), "budget" (below 1, or more paths than exist:
    check_tree_budget), "tree" (empty, deeper than the heads, ranks >= V), "temperature",
    "forward_tree_hidden" (check_medusa_tree_inputs), and exercise 21's "prompt",
    "max_new_tokens", "width", "vocabulary".

Worked example (the committed target and heads):

>>> import torch
>>> from speckata.decoding.baseline import autoregressive_generate
>>> from speckata.heads.medusa import load_medusa_heads
>>> from speckata.models.pretrained import char_tokenizer, load_target, text_windows
>>> target, heads = load_target(), load_medusa_heads()
>>> head_accuracies(target, heads, text_windows("train", 64, limit=1)[0], 3).numpy().round(3)
array([[0.597, 0.113, 0.065],
       [0.508, 0.115, 0.049],
       [0.5  , 0.117, 0.05 ]])
>>> medusa_tree([[0.6, 0.2], [0.5, 0.3]], 4)   # worth 0.6, 0.3, 0.2, 0.18
TreeShape([(0,), (1,), (0, 0), (0, 1)])
>>> prompt = char_tokenizer().encode("The class definition ")
>>> tree = [(0,), (1,), (2,), (0, 0), (0, 1), (1, 0), (0, 0, 0)]
>>> result = medusa_tree_generate(target, heads, prompt, 16, tree, torch.Generator().manual_seed(0), temperature=0)
>>> result.tokens == autoregressive_generate(target, prompt, 16, torch.Generator(), temperature=0)
True
>>> result.accepted_per_pass, result.target_passes
([2, 0, 0, 2, 2, 0, 2], 8)

Check it with:  kata check 29-medusa-tree   (or: pytest tests/test_29_medusa_tree.py)
"""

import torch  # noqa: F401
from ex16_top_k_drafts import verify_top_k  # noqa: F401  (your exercise 16)
from ex18_tree_attention_mask import tree_attention_mask, tree_position_ids  # noqa: F401  (your exercise 18)
from ex21_medusa_heads import medusa_logits  # noqa: F401  (your exercise 21)

from speckata.decoding.baseline import SpeculativeResult  # noqa: F401  (given)
from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities, sample_token  # noqa: F401
from speckata.decoding.tree_shapes import TreeShape  # noqa: F401  (given)
from speckata.heads.medusa_tree_checks import (  # noqa: F401  (given)
    check_accuracy_inputs,
    check_medusa_tree_inputs,
    check_tree_budget,
)


def head_accuracies(target, heads, ids, top):
    # TODO(29-medusa-tree): one forward_new_hidden over ids; per head k and rank r, the share of
    # positions whose rank-r guess is the token k + 2 ahead.
    raise NotImplementedError("29-medusa-tree: head_accuracies is not written yet")


def medusa_tree(accuracies, budget):
    # TODO(29-medusa-tree): grow the tree one path at a time, the frontier's most valuable first.
    raise NotImplementedError("29-medusa-tree: medusa_tree is not written yet")


def medusa_tree_generate(target, heads, prompt_ids, max_new_tokens, tree, generator, temperature=1.0):
    # TODO(29-medusa-tree): the heads' ranks fill the tree, ONE forward_tree_hidden verifies it, the
    # walk keeps a path (exercise 16's rule), keep_path, and the last kept node's state drafts again.
    raise NotImplementedError("29-medusa-tree: medusa_tree_generate is not written yet")
