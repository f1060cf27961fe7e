"""Exercise 16-top-k-drafts: reference solution. The exercise text is in exercises/ex16_top_k_drafts.py."""

import numpy as np

from speckata import sample
from speckata.token_ids import checked_token_ids
from speckata.validation import as_probability_rows, check_distributions

# What is left of p with no more mass than this comes from rounding alone.
LEFT_MASS_EPS = 1e-12


def check_top_k_inputs(p, candidates, q):
    """p and q as float64 rows of one vocabulary, the candidates as distinct plain ints."""
    p, p_tolerance = as_probability_rows("p", p)
    q, q_tolerance = as_probability_rows("q", q)
    if p.ndim != 1 or p.size == 0 or q.shape != p.shape:
        raise ValueError(f"p and q must be non-empty 1-D rows of the same shape; got {p.shape} and {q.shape}")
    check_distributions("p", p[None], p_tolerance)
    check_distributions("q", q[None], q_tolerance)
    if np.ndim(candidates) != 1:
        raise ValueError(f"candidates must be a 1-D sequence of token ids; got shape {np.shape(candidates)}")
    ids = checked_token_ids("candidates", list(candidates), p.size)
    if len(set(ids)) != len(ids):
        raise ValueError(f"candidates must be distinct token ids; got {ids}")
    return p, ids, q


def verify_top_k(p, candidates, q, rng) -> int:
    p, candidates, q = check_top_k_inputs(p, candidates, q)
    left = p.copy()  # p with every rejected candidate removed
    for x in candidates:
        u = rng.random()
        if u < left[x] / left.sum():
            return int(x)
        left[x] = 0.0
        if left.sum() <= LEFT_MASS_EPS:
            return sample(p, rng)
    return sample(left, rng)
