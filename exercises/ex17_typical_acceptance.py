"""Exercise 17-typical-acceptance: what Medusa's typical acceptance costs in exactness (numpy).

Medusa (Cai et al., 2024) can verify its candidates with a rule that is not exact: the target
keeps a proposal x when it finds x plausible enough, p(x) > min(ε, δ·exp(−H(p))), instead of
accepting it with probability min(1, p(x)/q(x)). It keeps more of some drafts and costs no
random numbers, but the output is no longer distributed as p. Here you compute, exactly, what
it is distributed as at one position, how often the proposal survives, and how far the output
is from the target. Theory: theory/17-typical-acceptance.md. Notebook:
notebooks/17-typical-acceptance.ipynb. Notation: p is the target, q is the draft.

The rule graded here (the paper's form; the published runs use ε = 0.09, δ = 0.3):
    H(p) = −Σ p(x)·ln p(x), in nats, over the tokens with p(x) > 0 (0·ln 0 counts as 0).
    threshold = min(ε, δ·exp(−H(p))).
    The draft proposes x, sampled from q. The target keeps x if p(x) > threshold (strictly).
    Otherwise (on_reject):
        "greedy"  the target emits its greedy token argmax p (the lowest index among ties): what
                  Medusa's reference code emits after the accepted prefix;
        "sample"  the target emits a sample from p.
    Medusa keeps the longest accepted prefix of each candidate; for the FIRST emitted token only
    this first decision matters, which is what you compute.

typical_threshold(p_row, epsilon=0.09, delta=0.3) -> float
    min(ε, δ·exp(−H(p))) as a Python float. Note: Medusa's code takes the entropy as
    −Σ p·log(p + 1e-5); the grader wants the exact entropy above.

typical_acceptance_rate(p_row, q_row, epsilon=0.09, delta=0.3) -> float
    The probability that the proposal is kept: Σ q(x) over the tokens with p(x) > threshold.

typical_output_distribution(p_row, q_row, on_reject="greedy", epsilon=0.09, delta=0.3)
    -> float64 array of shape (V,): P(first emitted token = x). The two paths of exercise 06:
    the kept proposals deliver q(x)·[p(x) > threshold], and the rest of the mass, 1 − (their
    total), goes to the replacement (one-hot at argmax p for "greedy", p normalised for
    "sample"). Use exactly "kept mass plus (1 − kept total) times the normalised replacement":
    then the result sums to 1 even for rows off by up to 1e-6.

total_variation(a, b) -> float: ½·Σ|a(x) − b(x)|, the distance of the output above from p.

Return Python floats and float64 arrays; keep the default settings; do not modify the inputs.

Bad input raises ValueError with a message containing: "on_reject" (anything but the two
    names above, case-sensitive), "shape" (rows not 1-D, empty, or of different lengths),
    "negative", "NaN", "sum to 1" (a row off by more than 1e-6), "epsilon" / "delta" (a setting
    that is not a finite number >= 0: a string, NaN, inf or a negative number).
    speckata.validation.check_distributions(name, row[None]) checks the rows' contents.

Worked example (theory/17-typical-acceptance.md): H(p) ≈ 0.869 nats, so δ·exp(−H) ≈ 0.126 and
ε = 0.09 binds; tokens 0 and 1 are kept, tokens 2 and 3 (p = 0.06 and 0.04) are not.

>>> p, q = [0.7, 0.2, 0.06, 0.04], [0.25, 0.25, 0.25, 0.25]
>>> typical_threshold(p), typical_acceptance_rate(p, q)
(0.09, 0.5)
>>> greedy = typical_output_distribution(p, q, "greedy")
>>> greedy.round(12).tolist(), round(total_variation(greedy, p), 12)
([0.75, 0.25, 0.0, 0.0], 0.1)
>>> sampled = typical_output_distribution(p, q, "sample")
>>> sampled.round(12).tolist(), round(total_variation(sampled, p), 12)
([0.6, 0.35, 0.03, 0.02], 0.15)

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: the threshold
    Task 3: the accept test and the acceptance rate
    Task 4: the rejected branch
    Task 5: generated pairs over a grid of settings
    Task 6: outputs
    Task 7: bad input

Check it with:  kata check 17-typical-acceptance   (or: pytest tests/test_17_typical_acceptance.py)
"""

import math  # noqa: F401

import numpy as np  # noqa: F401

from speckata.validation import check_distributions  # noqa: F401  (given helper)


def typical_threshold(p_row, epsilon=0.09, delta=0.3):
    # TODO(17-typical-acceptance): min(epsilon, delta * exp(-H(p))), H in nats with 0 log 0 = 0.
    raise NotImplementedError("17-typical-acceptance: typical_threshold is not written yet")


def typical_acceptance_rate(p_row, q_row, epsilon=0.09, delta=0.3):
    # TODO(17-typical-acceptance): the draft's mass on the tokens the target keeps.
    raise NotImplementedError("17-typical-acceptance: typical_acceptance_rate is not written yet")


def typical_output_distribution(p_row, q_row, on_reject="greedy", epsilon=0.09, delta=0.3):
    # TODO(17-typical-acceptance): kept proposals plus (1 - kept total) times the replacement.
    raise NotImplementedError("17-typical-acceptance: typical_output_distribution is not written yet")


def total_variation(a, b):
    # TODO(17-typical-acceptance): half the sum of absolute differences.
    raise NotImplementedError("17-typical-acceptance: total_variation is not written yet")
