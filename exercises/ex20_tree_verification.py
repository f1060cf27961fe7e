"""Exercise 20-tree-verification: verify a whole draft tree in ONE target pass (torch).

Exercise 10 verified one drafted chain per target pass: one rejection and every later draft is
lost. Here the draft proposes a TREE (several children per node), the target scores every node in
one pass with exercise 18's mask and positions, and the walk from the root tries each node's
children with the exact rules of exercises 15 and 16; only the accepted path's keys and values
stay in the caches. Theory: theory/20-tree-verification.md. Notebook: notebooks/20-tree-verification.ipynb.

The models (speckata.models.interface and speckata.models.tree_pass; real GPTs or Markov toys)
    model.forward_new(ids) -> logits (n, V)      as in exercise 10 (refused while a tree is pending)
    model.forward_tree(ids, attention_mask, position_ids) -> logits (n, V)
        ONE pass over n tokens placed after the cache's cache_length tokens; mask (n, cache_length + n)
        and positions (n,) as exercise 18 builds them; row i: the logits after token i. Calls that
        follow one another extend one pending tree.
    model.keep_path(nodes)   keep the cache before the pending tree, then tree nodes `nodes`
        (increasing, counted from the tree's first node), moved into place; with no tree, only [].
    Both models are recorded: every call, its ids, mask, positions and nodes, is part of the contract.

The tree's shape (given: speckata.decoding.tree_shapes.TreeShape): rank paths such as
[(0,), (1,), (0, 0)]. Node numbers, shape.parents (-1: a child of the newest token),
shape.children(node) (node -1: the newest token's children), shape.depths (1 for those) and
shape.levels ((first, end) node ranges of depth 1, 2, ...) come from it; shape.truncated(d) keeps
the nodes of depth <= d.

tree_speculative_generate(target, draft, prompt_ids, max_new_tokens, tree, generator,
                          temperature=1.0, children="top_k")
    tree      rank paths (or a TreeShape); children: "top_k" (rank r = the draft's (r+1)-th largest
              logit) or "sampled" (rank r = the (r+1)-th sample from q). Other inputs as exercise 10.
Returns a speckata.decoding.baseline.SpeculativeResult: tokens (max_new_tokens plain ints), and per
round accepted_per_pass (accepted nodes) and drafted_per_pass (nodes in the round's shape);
target_passes (rounds), draft_passes (the draft's forward_new and forward_tree calls).

The contract. sequence, full = check_tree_generation_inputs(target, draft, prompt_ids,
max_new_tokens, tree, temperature, children) (given, speckata.decoding.tree_shapes); target.reset();
draft.reset(). Repeat rounds until max_new_tokens tokens are out:
  0. shape = full.truncated(max_new_tokens - (tokens so far) - 1): no round may overshoot.
  1. Draft (no draft call when the shape is empty). rows[-1] = the last row of
     draft.forward_new(sequence[draft.cache_length:]); L = draft.cache_length now. For each depth
     d = 1, 2, ...: for each node at depth d - 1 in node order (the newest token for d = 1), give
     its children, in rank order, their tokens from rows[that node]: "top_k" takes
     torch.argsort(row, descending=True, stable=True)[:c] (among equal logits the lower token id
     first; torch.topk promises no order among ties); "sampled" takes c sample_token(q, generator)
     with q = next_token_probabilities(row, temperature). Then, unless d is the deepest depth, feed
     level d = nodes first..end-1 in one draft.forward_tree call with
     tree_attention_mask(shape.parents[:end], L)[first:] and tree_position_ids(shape.parents[:end], L)[first:],
     and keep its rows as rows[node]. (The deepest level is never fed: its children are not needed.)
  2. Verify (one target call). pending = sequence[target.cache_length:] (the whole prompt in round
     1, then the newest token), m = len(pending); the tree fed is pending (a chain: parents -1, 0,
     .., m-2) followed by the shape's nodes (node j's parent: m - 1 if shape.parents[j] == -1, else
     m + shape.parents[j]); mask and positions from your exercise 18 functions with L =
     target.cache_length. p at the newest token = next_token_probabilities of row m - 1; at node j, row m + j.
  3. Walk from the newest token. At a node with children, try them in rank order:
     "sampled": SpecInfer's rule (exercise 15, verify_candidates): target = p of the node; per child
       x: u = draw_uniform(generator); accept if u < target[x] / q[x]; on a rejection, target =
       max(target - q, 0) normalised (unless that has total <= 1e-12: keep target). All rejected:
       the correction is sample_token(target, generator).
     "top_k": the deterministic rule (exercise 16, verify_top_k): left = a copy of p; per child x:
       u = draw_uniform(generator); accept if u < left[x] / left.sum(); else left[x] = 0, and if
       then left.sum() <= 1e-12, stop trying children (no draw for the ones left): the correction
       is sample_token(p, generator). All rejected: sample_token(left, generator).
     An accepted child becomes the node (go on with its children); a node with no children ends
     the round with the bonus token sample_token(its p, generator). Comparisons are strict.
  4. Append the accepted nodes' tokens and the correction or bonus token to the sequence.
  5. target.keep_path([0 .. m-1] + [m + j for each accepted node j]); then
     draft.keep_path([accepted nodes j the draft was fed]) (every round, [] included).

Random draws, in this order: while drafting, the "sampled" children's samples (none for "top_k");
then one draw_uniform per tried child along the walk; then one sample_token. At temperature 0 the
output is the target's greedy decoding, token for token.

Import exercise 18 at the top with `from ex18_tree_attention_mask import tree_attention_mask,
tree_position_ids` (the grader imports your exercise files from the folder it grades: solve 18 first).

Bad input: ValueError from check_tree_generation_inputs ("prompt", "max_new_tokens",
"temperature", "vocabulary", "tree", "children").

Worked example (toy Markov chains of order 1; a two-node star: the draft's top 2 children):

>>> import torch
>>> from speckata.models.markov import MarkovModel
>>> from speckata.models.recording import RecordingModel
>>> target = RecordingModel(MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]]))
>>> draft = RecordingModel(MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]]))
>>> result = tree_speculative_generate(target, draft, [0], 4, [(0,), (1,)], torch.Generator().manual_seed(2))
>>> result.tokens, result.accepted_per_pass, result.target_passes
([2, 1, 1, 0], [1, 0, 0], 3)
>>> [call[1] for call in target.calls if call[0] == "tree"]   # the newest token, then its two children
[(0, 1, 2), (1, 2, 0), (1,)]
>>> [call for call in target.calls if call[0] == "keep_path"]   # round 3's shape is empty (1 token left)
[('keep_path', (0, 2), 3), ('keep_path', (0,), 5), ('keep_path', (0,), 4)]

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: temperature 0 is the target's greedy decoding
    Task 3: one target pass per round: the tree, its mask and positions
    Task 4: the draft builds the tree a level per pass
    Task 5: only the accepted path stays in the caches
    Task 6: exact replay against the reference
    Task 7: the output is distributed as the target's
    Task 8: bad input

Check it with:  kata check 20-tree-verification   (or: pytest tests/test_20_tree_verification.py)
"""

import torch  # noqa: F401
from ex18_tree_attention_mask import tree_attention_mask, tree_position_ids  # noqa: F401  (your exercise 18)

from speckata.decoding.baseline import SpeculativeResult  # noqa: F401  (given)
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token  # noqa: F401
from speckata.decoding.tree_shapes import TreeShape, check_tree_generation_inputs  # noqa: F401  (given)


def tree_speculative_generate(target, draft, prompt_ids, max_new_tokens, tree, generator, temperature=1.0,
                              children="top_k"):
    # TODO(20-tree-verification): draft a tree a level per pass, verify it in one target pass, walk it
    # with the multi-candidate rules, keep only the accepted path in both caches; repeat.
    raise NotImplementedError("20-tree-verification: tree_speculative_generate is not written yet")
