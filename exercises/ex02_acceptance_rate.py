"""Exercise 02-acceptance-rate: how often the target accepts the draft's proposals (numpy).

In exercise 01 a drafted token x survives the accept test with probability min(1, p(x)/q(x)).
Averaged over what the draft proposes (x drawn from q) that is the acceptance rate

    α = Σ_x q(x)·min(1, p(x)/q(x)) = Σ_x min(p(x), q(x)),

which is also 1 − TV(p, q), one minus the total-variation distance TV(p, q) = ½·Σ_x |p(x) − q(x)|.
Theory: theory/02-acceptance-rate.md. Notebook: notebooks/02-acceptance-rate.ipynb.
Notation: p is the target, q is the draft.

acceptance_rate(p, q)
    p, q     numpy arrays or nested lists of the same shape (..., V): one distribution per row,
             the last axis runs over the V tokens of the vocabulary. Either one pair of rows
             (shape (V,)) or stacked rows (shape (B, V), (B, T, V), ...).
    returns  α = Σ min(p, q) over the last axis:
             - one pair of rows (1-D inputs): a plain Python float;
             - stacked rows: a float64 numpy array of shape p.shape[:-1], one α per row. The
               leading dimensions are kept even when they hold a single row: shape (1, V) gives
               an array of shape (1,), and shape (0, V) an empty array of shape (0,).
    The inputs are not modified.

Bad input raises ValueError with a message naming the problem; the grader looks for these
phrases: "shape" (p and q of different shapes, a 0-d input, or V = 0: no broadcasting, a (V,)
row against (B, V) rows is an error), "negative" (a negative probability), "NaN", "sum to 1" (a
row whose sum is off 1 by more than 1e-6; rows within that tolerance are accepted as they are).
The given speckata.validation.check_distributions(name, rows) checks the last three for a 2-D
array of rows (reshape stacked rows to (-1, V) first).

Worked example (position 0 and 1 of exercise 01's example):

>>> acceptance_rate([0.2, 0.5, 0.3], [0.5, 0.3, 0.2])   # min: [0.2, 0.3, 0.2]
0.7
>>> acceptance_rate([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]).round(12).tolist()
[0.7, 0.8]
>>> acceptance_rate([0.5, 0.5, 0.0], [0.0, 0.0, 1.0])   # disjoint supports: never accepted
0.0

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: α = Σ min(p, q) = 1 − TV(p, q), on many generated pairs
    Task 3: the edge cases
    Task 4: shapes and types
    Task 5: bad input

Check it with:  kata check 02-acceptance-rate   (or: pytest tests/test_02_acceptance_rate.py)
"""

import numpy as np  # noqa: F401

from speckata.validation import check_distributions  # noqa: F401  (given helper)


def acceptance_rate(p, q):
    # TODO(02-acceptance-rate): check the inputs, then sum min(p, q) over the last axis.
    raise NotImplementedError("02-acceptance-rate: acceptance_rate is not written yet")
