"""Exercise 06-exactness-proof: reference solution. The exercise text is in exercises/ex06_exactness_proof.py."""

import numpy as np

from speckata.validation import check_distributions

RULES = ("exact", "resample_from_target")
RESIDUAL_MASS_EPS = 1e-12  # as in exercise 01: less residual mass than this is rounding alone


def output_distribution(p_row, q_row, rule):
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}: expected one of {', '.join(repr(r) for r in RULES)}")
    p = np.asarray(p_row, dtype=np.float64)
    q = np.asarray(q_row, dtype=np.float64)
    if p.ndim != 1 or p.shape != q.shape or p.size == 0:
        raise ValueError(f"p_row and q_row must be non-empty 1-D rows of the same shape; got {p.shape} and {q.shape}")
    check_distributions("p", p[None])
    check_distributions("q", q[None])
    accepted = np.minimum(p, q)  # q(x)·min(1, p(x)/q(x)): the draft proposed x and it survived
    rejected = 1.0 - accepted.sum()  # 1 − α
    replacement = p
    if rule == "exact":
        residual = np.maximum(p - q, 0.0)
        if residual.sum() > RESIDUAL_MASS_EPS:
            replacement = residual
    return accepted + rejected * replacement / replacement.sum()
