"""Exercise 24-tree-shapes: choosing the tree, by Sequoia's dynamic programme and EAGLE-2's expansion.

Exercise 20 verifies ANY draft tree exactly; which tree to draft is a separate question. With a
node budget n, a chain spends every node deep, where few rounds reach; a tree can spend some of
them as second and third children, tried exactly when the first child is rejected. Two ways to
choose, both here, both returning a shape exercise 20's tree_speculative_generate takes unchanged
(speckata.decoding.tree_shapes.TreeShape: rank paths such as [(0,), (1,), (0, 0)], given):

  - Sequoia (Chen et al., 2024) assumes that whether a node's k-th child is accepted depends on k
    only (not on the depth, not on the text), measures that once, and searches for the shape with
    the largest expected number of tokens per target pass, by dynamic programming;
  - EAGLE-2 (Li et al., 2024) builds a new tree every round from the draft's own confidence in
    each path: expand the most confident nodes level by level, then keep the n most confident.

Theory: theory/24-tree-shapes.md. Notebook: notebooks/24-tree-shapes.ipynb.

The acceptance vector. acceptance[k] (k = 0, 1, ...) is the chance that a node's child of rank k
is accepted GIVEN that its k elder siblings (ranks 0 .. k-1) were rejected; the walk of exercise 20
tries a node's children in rank order and stops at the first accepted one. So the child of rank k
is the accepted one with chance  c[k] = acceptance[k] * (1 - acceptance[0]) * ... * (1 - acceptance[k-1]),
and a node is reached (every node on its rank path accepted) with the product of c over its path.
Sequoia's code and paper call c, not this conditional, the "acceptance vector" (the joint chance
that rank k is the accepted child): convert one of theirs with a[k] = c[k] / (1 - c[0] - ... - c[k-1]).

expected_tokens(tree, acceptance) -> float                       (Task 1)
    The expected tokens per target pass of the shape `tree` (rank paths or a TreeShape): 1 (the
    correction or bonus token every pass makes) plus, over every node, the chance that it is
    reached. A plain Python float. An empty tree gives 1.0. (A chain of n nodes under a constant
    acceptance a gives exercise 03's 1 + a + ... + a^n.)
optimal_tree(acceptance, budget, max_depth=None) -> TreeShape   (Task 2)
    A shape of exactly `budget` nodes, no child rank >= len(acceptance), no node deeper than
    max_depth (None: no limit), whose expected_tokens is the largest of all such shapes. Several
    shapes often tie: any one of largest value is right (the grader computes your shape's value
    and compares it with the optimum to a relative 1e-9). Enumerating every shape is hopeless past
    ~15 nodes: write the dynamic programme (the theory page derives it); the grader asks for
    budgets up to 64 with 8 acceptance entries.
dynamic_tree(draft_probs, budget, top_k, depth) -> TreeShape    (Task 3)
    EAGLE-2's rule. draft_probs(path) is the draft's next-token distribution after the newest token
    followed by the tokens `path` (a tuple of plain ints; () for the newest token itself): a 1-D
    list or array of probabilities in [0, 1]. A node's confidence is the product of the draft's
    probabilities of the tokens on its path (the newest token: 1). A node's children are the
    top_k tokens of draft_probs(its path), largest probability first, ties to the lower token id
    (np.argsort(-probs, kind="stable")[:top_k]); child rank r is the (r+1)-th of them.
      Expansion: level 0 is the newest token. For level d = 1 .. depth: choose the top_k nodes of
        level d-1 by confidence (ties: the earlier in level order), then, in level order (not in
        confidence order), call draft_probs once on each chosen node's path and make its top_k
        children; level d is those children, in that order.
      Reranking: of all the nodes made (top_k + (depth - 1) * top_k**2), keep the `budget` with the
        largest confidence; ties go to the shallower node, then to the one made first. (A child is
        never more confident than its parent, and a rank-r child never more than its rank-(r-1)
        sibling, so the kept nodes form a valid shape.)
    Return the kept nodes' rank paths as a TreeShape. draft_probs is called exactly as above: the
    grader records the paths it was called with, in order, and replays them against a reference.

Bad input raises ValueError with a message containing the phrase in quotes:
    acceptance   not a non-empty 1-D list of numbers in [0, 1]                  "acceptance"
    tree         not a valid shape (TreeShape's own check); a child of rank     "tree" / "acceptance"
                 >= len(acceptance)
    budget       not an int (bool refused) >= 1; more nodes than fit           "budget"
                 (optimal_tree: a node has at most K = len(acceptance) children,
                 so a tree at most max_depth deep holds at most K + K**2 + ...
                 + K**max_depth nodes; dynamic_tree: top_k + (depth - 1) * top_k**2)
    max_depth, top_k, depth   not an int >= 1                                   "max_depth" / "top_k" / "depth"
    draft_probs  not callable                                                   "draft_probs"
                 a returned row that is not 1-D, has fewer than top_k entries,   "probabilities"
                 or holds a value outside [0, 1]

Worked example. Acceptance 0.5 for the first child and 0.5 for the second: c = [0.5, 0.25].

>>> expected_tokens([(0,), (0, 0), (0, 0, 0)], [0.5, 0.5])   # a chain: 1 + 0.5 + 0.25 + 0.125
1.875
>>> expected_tokens([(0,), (1,), (0, 0)], [0.5, 0.5])        # 1 + 0.5 + 0.25 + 0.5 * 0.5
2.0
>>> shape = optimal_tree([0.5, 0.5], 3)
>>> shape.paths, expected_tokens(shape, [0.5, 0.5])
([(0,), (1,), (0, 0)], 2.0)
>>> rows = {(): [0.6, 0.3, 0.1], (0,): [0.5, 0.1, 0.4], (1,): [0.9, 0.05, 0.05]}
>>> asked = []
>>> def draft_probs(path):
...     asked.append(path)
...     return rows[path]
>>> dynamic_tree(draft_probs, 4, 2, 2).paths, asked
([(0,), (1,), (0, 0), (1, 0)], [(), (0,), (1,)])

(Made: (0,) 0.6, (1,) 0.3, (0, 0) 0.6 * 0.5 = 0.3, (0, 1) 0.6 * 0.4 = 0.24, (1, 0) 0.3 * 0.9 = 0.27,
(1, 1) 0.3 * 0.05 = 0.015; kept: the four largest, (1,) before (0, 0) on their tie by depth.)

Tasks (the grader reports a failure by its task number):
    Task 1: expected_tokens, the value of a shape
    Task 2: optimal_tree, the best shape for a budget
    Task 3: dynamic_tree, EAGLE-2's expansion, replayed
    Task 4: bad input

Check it with:  kata check 24-tree-shapes   (or: pytest tests/test_24_tree_shapes.py)
"""

import numpy as np  # noqa: F401

from speckata.decoding.tree_shapes import TreeShape


def expected_tokens(tree, acceptance) -> float:
    # TODO(24-tree-shapes): 1 + the sum over nodes of the product of c[rank] along the node's path.
    raise NotImplementedError("24-tree-shapes: expected_tokens is not written yet")


def optimal_tree(acceptance, budget, max_depth=None) -> TreeShape:
    # TODO(24-tree-shapes): the best value of m nodes given to the children of ranks k, k + 1, ... of one
    # node, at most h deep, as a memoised recursion; then rebuild the shape from the choices.
    raise NotImplementedError("24-tree-shapes: optimal_tree is not written yet")


def dynamic_tree(draft_probs, budget, top_k, depth) -> TreeShape:
    # TODO(24-tree-shapes): expand the top_k most confident nodes of each level, then keep the budget
    # most confident nodes of all.
    raise NotImplementedError("24-tree-shapes: dynamic_tree is not written yet")
