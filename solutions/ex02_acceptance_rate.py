"""Exercise 02-acceptance-rate: reference solution. The exercise text is in exercises/ex02_acceptance_rate.py."""

import numpy as np

from speckata.validation import check_distributions


def acceptance_rate(p, q):
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same shape (no broadcasting); got p {p.shape} and q {q.shape}")
    if p.ndim == 0 or p.shape[-1] == 0:
        raise ValueError(f"p and q need a last axis over a non-empty vocabulary; got shape {p.shape}")
    check_distributions("p", p.reshape(-1, p.shape[-1]))
    check_distributions("q", q.reshape(-1, q.shape[-1]))
    alpha = np.minimum(p, q).sum(axis=-1)
    return float(alpha) if p.ndim == 1 else alpha
