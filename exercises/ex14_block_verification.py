"""Exercise 14-block-verification: verify the drafted block jointly (Sun et al., ICLR 2025) (numpy).

Exercise 01 verifies the drafts one at a time and stops at the first rejection. Block
verification looks at the whole block before it decides, and keeps more drafts on average
while the output stays exactly the target's. Theory: theory/14-block-verification.md. Worked
example: notebooks/14-block-verification.ipynb.

Inputs (as in exercise 01)
    p      target distributions, shape (γ+1, V): p[i] after the first i drafts, p[γ] after all.
    q      draft distributions, shape (γ, V): q[i] is what the draft sampled draft[i] from.
    draft  the γ proposed token ids; write x_i = draft[i-1] for i = 1..γ.
    rng    anything with a .random() method returning a uniform number in [0, 1).

block_verify(p, q, draft, rng) -> list[int], the rule:
    1. Weights. p_0 = 1 and, for i = 1..γ, p_i = min(p_{i-1} · p[i-1, x_i] / q[i-1, x_i], 1).
    2. Stopping weights. For i = 1..γ-1: Z_i = Σ_x max(p_i · p[i, x] − q[i, x], 0) and
       h_i = Z_i / (Z_i + 1 − p_i); if Z_i <= 1e-12 (no residual mass), h_i = 0 instead (this
       also avoids 0/0 when p_i = 1). The last one is h_γ = p_γ.
    3. Draw η_1, ..., η_γ with γ calls to rng.random(), in that order, all of them, before any
       sample. τ is the LARGEST i with η_i < h_i (strictly less), or 0 if there is none.
    4. Emit draft[:τ], then one token with one call to sample(weights, rng) (it normalises):
       from p[γ] if τ = γ; otherwise from the residual max(p_τ · p[τ] − q[τ], 0), or from p[τ]
       if that residual's total is at most 1e-12.
    Return 1 to γ+1 plain Python ints. Every call draws exactly γ + 1 numbers from rng.

expected_accepted(p, q, rule) -> float
    The exact expected number of drafts kept (τ for "block", the accepted count of exercise 01's
    rule for "token") when the draft samples each x_i from q[i-1], for rows that do not depend
    on the drafted prefix (a context-independent toy repeats one row: p = [row] * (γ+1)). Same
    shapes as block_verify; enumerate the V**γ blocks (refuse more than 10**6 with a ValueError
    saying "too many"); a token with q = 0 is never drafted. Any other rule: ValueError naming
    "rule". Hint: P(at least i drafts kept | x_1..x_i) is p_i for "block" and
    Π_{j <= i} min(1, p[j-1, x_j] / q[j-1, x_j]) for "token".

Tasks (the grader reports a failure by its task number):
    Task 1: the worked examples
    Task 2: τ is the largest i with η_i < h_i
    Task 3: the residual carries the weight p_τ
    Task 4: the residuals with no mass
    Task 5: inputs and outputs
    Task 6: random cases against the reference
    Task 7: the emitted block is distributed as the rule says
    Task 8: expected_accepted, exactly
    Task 9: simulated mean lengths against the exact values
    Task 10: bad input

Bad input raises ValueError naming the problem, with exercise 01's phrases ("shape", "out of
range", "zero probability", "negative", "NaN", "sum to 1", "complex", "integer"): the given
speckata.check_step_inputs(p, q, draft) does all of it and returns float64 arrays.

Worked example: the toy of theory/14-block-verification.md, p = [1/3, 2/3] and q = [2/3, 1/3]
at every position, γ = 2. Draft [0, 1]: p_1 = 1/2, Z_1 = 0 so h_1 = 0, p_2 = min(1/2 · 2, 1) = 1
= h_2, so τ = 2 whatever η is (exercise 01 would reject token 0 when u >= 1/2).

>>> from speckata import ReplayRNG
>>> p, q = [[1/3, 2/3]] * 3, [[2/3, 1/3]] * 2
>>> rng = ReplayRNG([0.7, 0.3, 0.5])
>>> block_verify(p, q, [0, 1], rng), rng.draws   # τ = 2: bonus from p[2], u = 0.5 -> token 1
([0, 1, 1], 3)
>>> rng = ReplayRNG([0.1, 0.6, 0.5])
>>> block_verify(p, q, [0, 0], rng), rng.draws   # h = (0, 1/4): τ = 0, residual [0, 1/3]
([1], 3)
>>> round(expected_accepted(p, q, "token"), 6), round(expected_accepted(p, q, "block"), 6)   # 10/9, 11/9
(1.111111, 1.222222)

Check it with:  kata check 14-block-verification   (or: pytest tests/test_14_block_verification.py)
"""

from speckata import check_step_inputs, sample  # noqa: F401  (given helpers)


def block_verify(p, q, draft, rng) -> list[int]:
    # TODO(14-block-verification): the weights p_i, the stopping weights h_i, τ, then one sample.
    raise NotImplementedError("14-block-verification: block_verify is not written yet")


def expected_accepted(p, q, rule) -> float:
    # TODO(14-block-verification): enumerate the drafted blocks and add up P(at least i kept).
    raise NotImplementedError("14-block-verification: expected_accepted is not written yet")
