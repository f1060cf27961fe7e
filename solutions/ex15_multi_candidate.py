"""Exercise 15-multi-candidate: reference solution. The exercise text is in exercises/ex15_multi_candidate.py."""

import numpy as np

from speckata import sample
from speckata.token_ids import checked_token_ids, is_integer
from speckata.validation import as_probability_rows, check_distributions

# A residual with no more mass than this comes from rounding alone (p and q agree).
RESIDUAL_MASS_EPS = 1e-12


def check_position(p, q):
    """p and q as float64 rows of one shape (V,), each a distribution."""
    p, p_tolerance = as_probability_rows("p", p)
    q, q_tolerance = as_probability_rows("q", q)
    if p.ndim != 1 or p.size == 0 or q.shape != p.shape:
        raise ValueError(f"p and q must both have shape (V,) with V >= 1; got {p.shape} and {q.shape}")
    check_distributions("p", p[None], p_tolerance)
    check_distributions("q", q[None], q_tolerance)
    return p, q


def check_candidates(candidates, q, distinct: bool) -> list[int]:
    ids = np.asarray(candidates)
    if ids.ndim != 1:
        raise ValueError(f"candidates must be a 1-D sequence of token ids; got shape {ids.shape}")
    if ids.size == 0:
        raise ValueError("at least one candidate is needed; got k = 0 candidates")
    tokens = checked_token_ids("candidates", ids.tolist(), q.size, allow_whole_floats=True)
    for index, token in enumerate(tokens):
        if q[token] == 0:
            raise ValueError(f"candidates[{index}] = {token} has zero probability under q: "
                             "the draft could not have proposed it")
        if distinct and token in tokens[:index]:
            raise ValueError(f"candidates[{index}] = {token} is a duplicate: "
                             "drawn without replacement, no token comes twice")
    return tokens


def next_target(p, q):
    """After a rejection the target becomes the normalised residual max(p - q, 0)."""
    residual = np.maximum(p - q, 0.0)
    total = residual.sum()
    if total <= RESIDUAL_MASS_EPS:  # p and q agree up to rounding: nothing is missing, keep p
        return p
    return residual / total


def without_token(q, token: int):
    """q with ``token`` removed and the rest renormalised (left unnormalised when nothing is left)."""
    q = q.copy()
    q[token] = 0.0
    remaining = q.sum()
    if remaining > 0:  # zero only after the last candidate, and then q is not needed again
        q /= remaining
    return q


def verify_candidates(p, q, candidates, rng):
    p, q = check_position(p, q)
    candidates = check_candidates(candidates, q, distinct=False)
    for index, x in enumerate(candidates):
        if rng.random() < p[x] / q[x]:
            return x, index
        p = next_target(p, q)
    return sample(p, rng), None


def verify_candidates_without_replacement(p, q, candidates, rng):
    p, q = check_position(p, q)
    candidates = check_candidates(candidates, q, distinct=True)
    for index, x in enumerate(candidates):
        if rng.random() < p[x] / q[x]:
            return x, index
        p = next_target(p, q)
        q = without_token(q, x)
    return sample(p, rng), None


def chance_some_candidate_is_accepted(p, q, k: int, without_replacement: bool) -> float:
    """Enumerate the draw of the next candidate x (probability q(x)); below a rejection, recurse."""
    if k == 0:
        return 0.0
    p_after = next_target(p, q)
    total = 0.0
    for x in np.flatnonzero(q > 0):
        accept = min(1.0, p[x] / q[x])
        later = 0.0
        if accept < 1.0 and k > 1:
            q_after = without_token(q, x) if without_replacement else q
            later = chance_some_candidate_is_accepted(p_after, q_after, k - 1, without_replacement)
        total += q[x] * (accept + (1.0 - accept) * later)
    return total


def acceptance_probability(p, q, k, without_replacement=False) -> float:
    p, q = check_position(p, q)
    if not is_integer(k) or int(k) < 1:
        raise ValueError(f"k must be an integer number of candidates, at least one candidate; got {k!r}")
    proposable = int(np.count_nonzero(q))
    if without_replacement and int(k) > proposable:
        raise ValueError(f"k = {int(k)} is more candidates than the {proposable} tokens "
                         "q can propose without replacement")
    return float(min(1.0, chance_some_candidate_is_accepted(p, q, int(k), without_replacement)))
