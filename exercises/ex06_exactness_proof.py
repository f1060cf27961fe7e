"""Exercise 06-exactness-proof: the distribution of the first emitted token, computed exactly (numpy).

Exercise 01 claims its output is distributed exactly as the target p. Here you prove it by
computing, not sampling: add up the two ways a token x can come out of one verify position when
the draft proposes a token drawn from q, and compare with p. Then do the same for a tempting
shortcut that some implementations ship, and see that it is biased.
Theory: theory/06-exactness-proof.md. Notebook: notebooks/06-exactness-proof.ipynb.
Notation: p is the target, q is the draft.

output_distribution(p_row, q_row, rule) -> numpy array of shape (V,)
    p_row, q_row  the target's and the draft's distribution at one position, shape (V,).
    rule          which verify rule:
        "exact"                 exercise 01: on rejection, sample from the residual
                                max(0, p − q) normalised (if its total is at most 1e-12, from p);
        "resample_from_target"  the shortcut: on rejection, sample from p itself.
    returns       P(first emitted token = x) for every x, as a float64 array.

Both rules accept a proposal x with probability min(1, p(x)/q(x)), so the accepted path
delivers q(x)·min(1, p(x)/q(x)) = min(p(x), q(x)) of token x (0 where q(x) = 0). A rejection
happens with probability 1 − α, where α = Σ min(p, q) (exercise 02), and then the replacement
distribution (normalised to sum to 1) takes over:

    P(x) = min(p(x), q(x)) + (1 − α)·replacement(x).

Use exactly this: accepted path plus (1 − α) times the normalised replacement. Then the result
sums to 1 (to rounding) even when a row is off by up to the allowed 1e-6. For rows that sum to 1,
"exact" gives p to 1e-12 (that is the proof) and "resample_from_target" gives
min(p, q) + (1 − α)·p, which is not p. (Returning p_row unchanged for "exact" would teach
nothing, and the grader notices: p_row off by 5e-7 does not sum to 1.)

Bad input raises ValueError with a message containing: "rule" (any rule but the two above,
case-sensitive), "shape" (rows that are not 1-D, differ in length, or are empty), "negative",
"NaN", "sum to 1" (off by more than 1e-6). speckata.validation.check_distributions(name, rows)
checks the last three for a 2-D array of rows (use p_row[None] for one row).

Worked example (position 0 of exercise 01's example, α = 0.7):

>>> p, q = [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]
>>> output_distribution(p, q, "exact").round(12).tolist()                  # min(p, q) + 0.3·[0, 2/3, 1/3]
[0.2, 0.5, 0.3]
>>> output_distribution(p, q, "resample_from_target").round(12).tolist()   # min(p, q) + 0.3·p
[0.26, 0.45, 0.29]

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: the exact rule gives p
    Task 3: the shortcut and its bias
    Task 4: the edge cases
    Task 5: inputs and outputs
    Task 6: the formulas agree with the mechanisms
    Task 7: bad input

Check it with:  kata check 06-exactness-proof   (or: pytest tests/test_06_exactness_proof.py)
"""

import numpy as np  # noqa: F401

from speckata.validation import check_distributions  # noqa: F401  (given helper)


def output_distribution(p_row, q_row, rule):
    # TODO(06-exactness-proof): accepted path min(p, q) plus (1 - alpha) times the rule's normalised replacement.
    raise NotImplementedError("06-exactness-proof: output_distribution is not written yet")
