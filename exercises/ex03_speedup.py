"""Exercise 03-speedup: what an acceptance rate buys, in tokens and in wall time (plain Python).

Model one speculative step as in the paper that introduced it (Leviathan et al., 2023): each of
the γ drafted tokens is accepted independently with the same probability α, the acceptance rate
of exercise 02. Then the chance that the first k drafts are all accepted is α^k, and the number
of tokens a step emits (the accepted drafts plus the replacement or bonus token) has expectation

    E(α, γ) = 1 + α + α² + ... + α^γ = (1 − α^(γ+1)) / (1 − α),      with E(1, γ) = γ + 1.

A step costs γ draft passes plus one target pass. Measuring time in target passes, with c the
cost of one draft pass relative to one target pass, plain decoding makes 1 token per unit of
time and speculative decoding makes E(α, γ) / (γ·c + 1). Their ratio is the wall-time speedup

    S(α, γ, c) = (1 − α^(γ+1)) / ((1 − α)(γ·c + 1)).

Theory: theory/03-speedup.md. Notebook: notebooks/03-speedup.ipynb.

expected_tokens_per_pass(alpha, gamma) -> float
    E(α, γ) as a plain Python float. α = 1 gives the limit γ + 1 exactly. Close to 1 the formula
    cancels catastrophically: 1 − α^(γ+1) and 1 − α are both tiny, and the rounding error of
    α^(γ+1) swamps the numerator (at α = 1 − 1e-9 it is off by about 1e-9 relative). The grader
    compares with the exact value to a relative 1e-12, for α as close to 1 as 1 − 1e-12 and γ up
    to 200. (Ways out: add up the geometric series, or use math.expm1 and math.log.)
walltime_speedup(alpha, gamma, c) -> float
    S(α, γ, c) as a plain Python float, to the same relative 1e-12. γ = 0 gives 1.
optimal_gamma(alpha, c, max_gamma=32) -> int
    The γ in 1, 2, ..., max_gamma (both ends included) with the largest walltime_speedup; on a tie,
    the smallest such γ. A plain Python int. It never returns 0, even when every γ loses to plain
    decoding (the theory page says when that happens).

Ranges; anything else raises ValueError with a message containing the phrase in quotes:
    alpha       a real number in [0, 1]                               "alpha"
    gamma       an int >= 0 (numpy integers too; floats and bools     "integer" / "negative"
                are refused, even 3.0)
    c           a real number >= 0 and finite (NaN and inf refused)   "cost" (with "negative"
                                                                      for c < 0)
    max_gamma   an int >= 1                                           "max_gamma"

Worked example (α = 0.8, γ = 5, a draft at 5% of the target's cost):

>>> round(expected_tokens_per_pass(0.8, 5), 6)   # 1 + 0.8 + 0.64 + 0.512 + 0.4096 + 0.32768
3.68928
>>> round(walltime_speedup(0.8, 5, 0.05), 6)     # 3.68928 / 1.25
2.951424
>>> expected_tokens_per_pass(1.0, 5), round(walltime_speedup(0.3, 0, 0.05), 12)   # the limit; γ = 0
(6.0, 1.0)
>>> optimal_gamma(0.8, 0.05)
8

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: the ends of the range
    Task 3: no catastrophic cancellation near α = 1
    Task 4: generated cases against the exact values
    Task 5: the best γ
    Task 6: bad input

Check it with:  kata check 03-speedup   (or: pytest tests/test_03_speedup.py)
"""

import math  # noqa: F401

import numpy as np  # noqa: F401  (numpy integers are valid γ)


def expected_tokens_per_pass(alpha, gamma) -> float:
    # TODO(03-speedup): validate, handle alpha == 1, and compute (1 - alpha**(gamma+1)) / (1 - alpha) without cancellation.
    raise NotImplementedError("03-speedup: expected_tokens_per_pass is not written yet")


def walltime_speedup(alpha, gamma, c) -> float:
    # TODO(03-speedup): the expected tokens per pass divided by the cost of a step, gamma * c + 1.
    raise NotImplementedError("03-speedup: walltime_speedup is not written yet")


def optimal_gamma(alpha, c, max_gamma=32) -> int:
    # TODO(03-speedup): try gamma = 1 .. max_gamma and keep the first one with the largest speedup.
    raise NotImplementedError("03-speedup: optimal_gamma is not written yet")
