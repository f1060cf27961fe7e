"""Exercise 30-eagle2-tree: EAGLE-2's dynamic tree, grown on the cached EAGLE head (torch).

Exercise 28's head drafts a chain: one token per step, and the round ends at the first miss.
EAGLE-2 (Li et al., 2024, "EAGLE-2: Faster Inference of Language Models with Dynamic Draft
Trees"; SafeAILab/EAGLE, eagle/model/cnets.py, topK_genrate) grows a TREE with the same head,
level by level: at each level the top_k nodes of the newest level by path confidence (the product
of the head's probabilities along the path) are expanded, each by the head's top_k tokens, and
the expanded nodes' rows are computed in ONE head call with a tree mask. Then the tree is
reranked: the `budget` most confident nodes are kept, exercise 24's dynamic_tree on the head's
own probabilities. The target verifies the whole tree in one pass (exercise 20), and the kept
nodes' TRUE features, read from that pass, feed the head's cache next round (exercise 28's rule).
Theory: theory/30-eagle2-tree.md. Notebook: notebooks/30-eagle2-tree.ipynb.

Given (speckata.heads.eagle), besides exercises 22 and 28's:
    head.forward_tree(fused, mask) -> (n, width)   n new rows of fc's output, fused (n, width); row
        i sees the rows its mask row allows, mask (n, head.cache_length + n) bool (exercise 18's
        mask with the cache as the prefix); the cache grows by n. RecordingEagleHead records it as
        ('tree', n, rows cached before) and counts its n rows.
    target.forward_tree_hidden(ids, mask, positions) -> (hidden (n, width), logits (n, V)): the
        tree pass of exercise 20 with the hidden states; target.keep_path(nodes) as there.

Task 1: the tree on the cached head
    eagle2_tree(target, head, features, tokens, budget, top_k, depth) -> (shape, tokens)
    features (n, width) and tokens (n,) as in exercise 28 (the target's TRUE features f_0..f_{n-1},
    the tokens x_1..x_n; x_n is the newest token, the tree's root); the head's cache holds rows of
    the first m < n of them. Check them with check_features. Under torch.no_grad():
      1. root = eagle_head_step(head, target, features[m:], tokens[m:])[-1]  (exercise 28, ONE call)
      2. The head's probabilities at a node: torch.softmax of target.head(its predicted feature),
         in float64, at temperature 1 whatever the decoder's temperature; its top_k tokens: in
         descending probability, the lower id first on a tie. A node's confidence: its parent's
         (the root's is 1) times the head's probability of its token at the parent.
      3. Level 1: the root's top_k tokens. Level L = 2..depth: choose the top_k nodes of level L-1
         by confidence (the earlier-made first on a tie) and, in the order they were made, compute
         their rows in ONE head.forward_tree call: node v's fused row is
         head.fc(torch.cat([target.token_embedding(token of v), predicted feature of v's parent]))
         (the root's: `root`), and its mask row sees the n true rows, the rows of v's ancestors and
         its own row. Each chosen node's children: its top_k tokens, made in that order.
      4. After level `depth`: if head.cache_length > n, head.crop(n) (the tree rows go: only rows of
         the target's true features stay, exercise 28's rule).
      5. Rerank: keep the `budget` nodes of highest confidence (ties: the shallower, then the
         earlier-made first). Return shape = TreeShape of their rank paths (rank r: the parent's
         (r+1)-th token) and tokens, a list of plain ints, the token of each node of shape in
         shape's node order. shape equals exercise 24's dynamic_tree(draft_probs, budget, top_k,
         depth), draft_probs(token path) being the head's probabilities after that path.
    No random draws. Head calls: one forward_new, depth - 1 forward_tree of top_k rows each, a crop.

Task 2: the decoder
    eagle2_generate(target, head, prompt_ids, max_new_tokens, budget, top_k, depth, generator,
                    temperature=1.0) -> SpeculativeResult
    Exercise 28's decoder with a tree: target.reset(), head.reset(); if max_new_tokens is 0 return
    the empty result; the prompt's pass features, logits = target.forward_new_hidden(prompt) (a
    target pass) and the first token sampled from its last row (one sample_token). Then per round
    while tokens are missing (r of them):
      1. levels = min(depth, r - 1). If levels > 0: shape, tokens = eagle2_tree(target, head,
         features, torch.tensor(sequence[1:]), min(budget, top_k + (levels-1) * top_k**2), top_k,
         levels) and draft_passes += levels; else an empty tree.
      2. ONE target pass: hidden, logits = target.forward_tree_hidden(pending + tokens, mask,
         positions), pending = sequence[target.cache_length:], with exercise 18's mask and positions
         of the chain of pending tokens and the tree hanging from the last of them.
      3. p = next_token_probabilities(logits, temperature). Walk from the root (exercise 20's rule
         for deterministic candidates): at a node with children, try them in node order: one
         draw_uniform u each, accept x if u < left[x] / left.sum() (left starts as p at that node;
         a rejected x gets left[x] = 0; if left's mass drops to 1e-12 or less, sample_token(p) and
         stop); all rejected: sample_token(left); a leaf reached: sample_token(p at the leaf).
      4. sequence and result.tokens += the accepted nodes' tokens and the extra token;
         kept = [0 .. len(pending)-1] + [len(pending) + node for each accepted node];
         features = torch.cat([features, hidden[kept]]); target.keep_path(kept);
         accepted_per_pass += [accepted nodes], drafted_per_pass += [len(shape)], target_passes += 1.
    Output: at temperature 0 the target's greedy decoding; at any temperature distributed as the
    target's own sampling (the candidates are deterministic: the tree does not depend on the draws).
    You may use exercises 18 and 28: `from ex18_tree_attention_mask import tree_attention_mask,
    tree_position_ids`, `from ex28_eagle_head_cache import eagle_head_step`.

Task 3: bad input
    A ValueError naming the problem: "budget" (< 1, or more nodes than the expansion makes,
    top_k + (depth-1) top_k^2), "top_k" (outside 1..V), "depth" (< 1), "cache" (the head's cache
    holds as many rows as the features or more), "features", and exercise 22's checks: "prompt",
    "max_new_tokens", "temperature" (check_eagle_inputs), "width", "tokens" (check_features).

Worked example (the committed target and head): more tokens per pass than exercise 28's chain.

>>> import torch
>>> from speckata.decoding.baseline import autoregressive_generate
>>> from speckata.heads.eagle import RecordingEagleHead, load_eagle_head
>>> from speckata.models.pretrained import char_tokenizer, load_target
>>> target, head = load_target(), RecordingEagleHead(load_eagle_head())
>>> prompt = char_tokenizer().encode("The class definition ")
>>> result = eagle2_generate(target, head, prompt, 24, 8, 3, 4, torch.Generator().manual_seed(0), temperature=0)
>>> result.tokens == autoregressive_generate(target, prompt, 24, torch.Generator(), temperature=0)
True
>>> result.accepted_per_pass, result.target_passes
([4, 4, 4, 4, 2], 6)
>>> head.calls[:6]
[('reset', 0), ('new', 21, 0), ('tree', 3, 21), ('tree', 3, 24), ('tree', 3, 27), ('crop', 21, 30)]

Check it with:  kata check 30-eagle2-tree   (or: pytest tests/test_30_eagle2_tree.py)
"""

import torch  # noqa: F401

from speckata.decoding.baseline import SpeculativeResult, check_count  # noqa: F401  (given)
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token  # noqa: F401
from speckata.decoding.tree_shapes import TreeShape  # noqa: F401
from speckata.heads.eagle import check_eagle_inputs, check_features  # noqa: F401


def eagle2_tree(target, head, features, tokens, budget, top_k, depth):
    # TODO(30-eagle2-tree): the missing true rows in one call, one forward_tree per level, crop, rerank.
    raise NotImplementedError("30-eagle2-tree: eagle2_tree is not written yet")


def eagle2_generate(target, head, prompt_ids, max_new_tokens, budget, top_k, depth, generator, temperature=1.0):
    # TODO(30-eagle2-tree): exercise 28's decoder, verifying eagle2_tree's tree in one tree pass.
    raise NotImplementedError("30-eagle2-tree: eagle2_generate is not written yet")
