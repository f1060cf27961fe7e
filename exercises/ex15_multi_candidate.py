"""Exercise 15-multi-candidate: several candidates for one position (numpy).

Exercise 01 gives the target one proposal per position: if it is rejected, the position is filled
from the residual. A draft can instead propose k candidates for the same position (SpecInfer, Sequoia
and EAGLE verify token trees whose nodes have several children) and the target tries them one after
another. Both rules below keep the output distributed exactly as p. Theory:
theory/15-multi-candidate.md. Worked example: notebooks/15-multi-candidate.ipynb.
Notation: p is the target, q is the draft.

Inputs (all three functions)
    p, q        the target's and the draft's distributions at this one position, shape (V,)
                each (lists or numpy arrays).
    candidates  k >= 1 token ids the draft drew from q (a list or 1-D array).
    rng         anything with a .random() method returning a uniform number in [0, 1).

Task 1: verify_candidates(p, q, candidates, rng) -> (token, index)
The candidates were drawn i.i.d. from q (SpecInfer's multi-step speculative sampling). Start
with p_0 = p. For j = 0, 1, ..., k-1 with x = candidates[j]:
    1. Draw u = rng.random(). Accept x if u < p_j(x) / q(x) (strictly less): return at once.
    2. On a rejection, the next target is the residual p_{j+1} = max(p_j - q, 0), normalised.
       Zero-mass guard: if max(p_j - q, 0) has total at most 1e-12 (p_j and q agree up to
       rounding), keep p_{j+1} = p_j. q itself never changes.
If all k are rejected, sample the token from p_k with sample(p_k, rng).

Task 2: verify_candidates_without_replacement(p, q, candidates, rng) -> (token, index)
The candidates were drawn without replacement (the first from q, each next one from q with the
earlier ones removed and renormalised; Sequoia's recursive rejection sampling), so no token comes
twice. Start with p_0 = p, q_0 = q, and for j = 0, 1, ..., k-1 with x = candidates[j]:
    1. Draw u = rng.random(). Accept x if u < p_j(x) / q_j(x) (strictly less): return at once.
    2. On a rejection, first p_{j+1} = max(p_j - q_j, 0) normalised (the same zero-mass guard),
       then q_{j+1} = q_j with q_j(x) set to 0, renormalised (after the last candidate nothing
       may be left: then q is not needed again).
If all k are rejected, sample the token from p_k with sample(p_k, rng).

Both return a tuple (token, index): the emitted token and the index j of the accepted candidate,
or (token, None) when every candidate was rejected and the token was sampled. Both are plain
Python ints (or None). The inputs are not modified.

The random-number contract (the grader replays fixed streams and counts your draws): exactly one
rng.random() per candidate tried, in order, and one more (inside sample) only when all k are
rejected, so 1 to k+1 draws. Never draw ahead, never draw a number you do not use.

Task 3: acceptance_probability(p, q, k, without_replacement=False) -> float
The probability, over the draft's draw of the k candidates from q (i.i.d., or without replacement
when without_replacement is True) and over the accept tests, that some candidate is accepted,
computed exactly: enumerate every sequence of candidates q can draw (V^k of them i.i.d.,
V!/(V-k)! without replacement; only tokens with q > 0), weigh each by its probability, and walk
the rule of Task 1 or 2 along it. Return a float. For k = 1 both variants give exercise 02's acceptance rate Σ min(p, q). Small V
and k only: the enumeration grows as V^k.

Bad input raises ValueError with a message naming the problem; the grader looks for these
phrases: "shape" (p, q not both of shape (V,) with V >= 1, or candidates not 1-D), "at least one
candidate" (k = 0, an empty candidates list), "out of range" (a candidate id outside [0, V)),
"integer" (a candidate such as 2.5, or a k that is not an integer), "zero probability" (a candidate
with q(x) = 0: the draft could not have drawn it), "duplicate" (a token twice in the
without-replacement variant), "more candidates" (acceptance_probability without replacement with k
larger than the number of tokens with q > 0), "negative", "NaN", "sum to 1" (p or q off 1 by more
than 1e-6; 1e-4 for float32). The given speckata.validation.check_distributions(name, rows) checks
the last three for a 2-D array of rows (pass p[None]); speckata.token_ids.checked_token_ids(name,
values, V, allow_whole_floats=True) checks "integer" and "out of range".

Worked example (from theory/15-multi-candidate.md): p = [0.2, 0.5, 0.3], q = [0.5, 0.3, 0.2].

>>> from speckata import ReplayRNG
>>> p, q = [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]
>>> rng = ReplayRNG([0.6, 0.9])         # 0.6 >= 0.2/0.5: reject 0; p_1 = [0, 2/3, 1/3]; 0.9 < (1/3)/0.2
>>> verify_candidates(p, q, [0, 2], rng), rng.draws
((2, 1), 2)
>>> rng = ReplayRNG([0.6, 0.1, 0.5])    # p_1(0) = 0: a repeated rejected token is rejected again
>>> verify_candidates(p, q, [0, 0], rng), rng.draws
((1, None), 3)
>>> rng = ReplayRNG([0.6, 0.9, 0.5])    # q_1 = [0, 0.6, 0.4]: 0.9 >= (1/3)/0.4; p_2 = [0, 1, 0]
>>> verify_candidates_without_replacement(p, q, [0, 2], rng), rng.draws
((1, None), 3)
>>> round(acceptance_probability(p, q, 1), 12), round(acceptance_probability(p, q, 2), 12)
(0.7, 0.85)

Check it with:  kata check 15-multi-candidate   (or: pytest tests/test_15_multi_candidate.py)
"""

import numpy as np  # noqa: F401

from speckata import sample  # noqa: F401  (given helper)
from speckata.token_ids import checked_token_ids  # noqa: F401  (given helper)
from speckata.validation import check_distributions  # noqa: F401  (given helper)


def verify_candidates(p, q, candidates, rng):
    # TODO(15-multi-candidate): Task 1, try i.i.d. candidates in order, updating p after each rejection.
    raise NotImplementedError("15-multi-candidate: verify_candidates is not written yet")


def verify_candidates_without_replacement(p, q, candidates, rng):
    # TODO(15-multi-candidate): Task 2, as Task 1, and remove each rejected candidate from q.
    raise NotImplementedError("15-multi-candidate: verify_candidates_without_replacement is not written yet")


def acceptance_probability(p, q, k, without_replacement=False) -> float:
    # TODO(15-multi-candidate): Task 3, enumerate the candidate draws and add up the chance of an acceptance.
    raise NotImplementedError("15-multi-candidate: acceptance_probability is not written yet")
