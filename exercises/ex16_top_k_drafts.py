"""Exercise 16-top-k-drafts: verifying a draft's top-k candidates exactly (numpy).

Tree drafts such as EAGLE-2's do not sample their candidates: at a position they propose the
draft's k most likely tokens, every time. A candidate that was not sampled from q cannot be
judged by exercise 01's test u < p(x)/q(x); that test is exact only because the proposal x was a
sample from q. Seen one at a time, a deterministic candidate is a proposal from a draft that puts
all its mass on it (q one-hot), and exercise 01's rule with a one-hot q is: accept x with
probability p(x); on rejection, the residual max(0, p − q) is p without x, renormalised. Try the
candidates in turn with what is left, and the emitted token is distributed exactly as p.
Theory: theory/16-top-k-drafts.md. Worked example: notebooks/16-top-k-drafts.ipynb.
Notation: p is the target, q is the draft.

verify_top_k(p, candidates, q, rng) -> int
    p           the target's distribution at this position, shape (V,).
    candidates  k distinct token ids in the order to try them (the draft's top k, most likely
                first); k = 0 is allowed. A list or a 1-D integer array.
    q           the draft's distribution at this position, shape (V,). The exact rule does not
                use it (it is validated, and there for comparison: see the theory page).
    rng         anything with a .random() method returning a uniform number in [0, 1).

The rule. Keep `left`, a copy of p. For each candidate x, in the order given:
    1. Draw u = rng.random(). Accept x if u < left[x] / left.sum() (strictly less): return x.
    2. Otherwise set left[x] = 0 and go on to the next candidate.
    If every candidate is rejected, return sample(left, rng) (it normalises for you).
    If, right after a rejection, left.sum() is at most 1e-12 (rounding, or a p with less than
    that outside the rejected candidates), stop trying candidates and return sample(p, rng) from
    the original p instead.

The random-number contract (the grader replays fixed streams and counts your draws): exactly one
rng.random() per tried candidate and one for the final sample (sample draws it), in the order the
rule visits them. Never draw ahead and never draw a number you do not use.

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
        the three calls below.
    Task 2: the accept test
        strict; its chance renormalised after each rejection; a candidate with p(x) = 0 is never
        accepted but its test still draws; candidates are tried in the order given.
    Task 3: how many candidates
        k = 0 is one sample from p; when every token is a candidate, the last one left has chance 1.
    Task 4: nothing left
        the 1e-12 fallback to p above.
    Task 5: inputs and outputs
        return a plain Python int; do not modify the inputs (set left[x] = 0 in a copy).
    Task 6: random cases against the reference
        hundreds of them, with top-k and shuffled candidates.
    Task 7: the token is distributed as p
        a chi-square test with the draft's top 3 as candidates.
    Task 8: bad input
        see below.

Bad input raises ValueError with a message naming the problem; the grader looks for these
phrases: "shape" (p not a non-empty 1-D row, or q of another shape), "out of range" (a candidate
outside [0, V)), "distinct" (a repeated candidate), "integer" (a candidate such as 1.5), "1-D"
(candidates that are not a flat sequence), "negative", "NaN", "sum to 1" (a row off by more than
1e-6). speckata.validation.check_distributions("p", p[None]) checks the last three for one row
as a (1, V) array; speckata.token_ids.checked_token_ids("candidates", ids, V) checks ids.

Worked example (theory/16-top-k-drafts.md): p = [0.5, 0.25, 0.125, 0.125], and the draft's top 2
are tokens 1 and 2.

>>> from speckata import ReplayRNG
>>> p, q = [0.5, 0.25, 0.125, 0.125], [0.2, 0.4, 0.3, 0.1]
>>> rng = ReplayRNG([0.1])
>>> verify_top_k(p, [1, 2], q, rng), rng.draws   # 0.1 < p(1) = 0.25: accept
(1, 1)
>>> rng = ReplayRNG([0.6, 0.1])
>>> verify_top_k(p, [1, 2], q, rng), rng.draws   # reject 1; 0.1 < 0.125 / 0.75: accept 2
(2, 2)
>>> rng = ReplayRNG([0.6, 0.5, 0.7])
>>> verify_top_k(p, [1, 2], q, rng), rng.draws   # both rejected; left is [0.8, 0, 0, 0.2]
(0, 3)

Check it with:  kata check 16-top-k-drafts   (or: pytest tests/test_16_top_k_drafts.py)
"""

import numpy as np  # noqa: F401

from speckata import sample  # noqa: F401  (given helper)
from speckata.token_ids import checked_token_ids  # noqa: F401  (given helper)
from speckata.validation import check_distributions  # noqa: F401  (given helper)


def verify_top_k(p, candidates, q, rng) -> int:
    # TODO(16-top-k-drafts): try each candidate with chance left[x] / left.sum(), then sample what is left.
    raise NotImplementedError("16-top-k-drafts: verify_top_k is not written yet")
