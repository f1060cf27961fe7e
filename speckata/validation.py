"""Input checks shared by every verify rule (exercise 01 and the ones built on it).

A bad input must fail loudly with a ``ValueError`` that names the problem, never with a NaN
result or a bare ``IndexError`` from deep inside the algorithm. Each message contains a fixed
key phrase ("shape", "out of range", "zero probability", "negative", "NaN", "sum to 1",
"integer") that the grading suites look for.
"""

from __future__ import annotations

import numpy as np

ROW_SUM_TOLERANCE = 1e-6


def check_distributions(name: str, rows: np.ndarray) -> None:
    """Rows of probabilities: finite, non-negative, each summing to 1 within 1e-6."""
    if np.isnan(rows).any():
        raise ValueError(f"{name} contains NaN")
    if not np.isfinite(rows).all():
        raise ValueError(f"{name} contains an infinite entry")
    if (rows < 0).any():
        i, j = np.argwhere(rows < 0)[0]
        raise ValueError(f"{name}[{i}, {j}] = {rows[i, j]} is negative: probabilities must be >= 0")
    sums = rows.sum(axis=-1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
    if bad.size:
        i = bad[0]
        raise ValueError(
            f"{name} row {i} sums to {sums[i]!r}; every row must sum to 1 (within {ROW_SUM_TOLERANCE})"
        )


def as_token_ids(draft) -> np.ndarray:
    """A 1-D array of integer token ids (a list, tuple or integer array)."""
    ids = np.asarray(draft)
    if ids.ndim != 1:
        raise ValueError(f"draft must be a 1-D sequence of token ids; got shape {ids.shape}")
    if ids.size == 0:
        return ids.astype(np.int64)
    if ids.dtype == bool or not np.issubdtype(ids.dtype, np.integer):
        if np.issubdtype(ids.dtype, np.floating) and np.all(ids == np.round(ids)):
            return ids.astype(np.int64)
        raise ValueError(f"draft must hold integer token ids; got dtype {ids.dtype}")
    return ids.astype(np.int64)


def check_step_inputs(p, q, draft):
    """Validate one verify step's inputs and return them as float64 / int64 arrays.

    p: (γ+1, V) target rows; q: (γ, V) draft rows; draft: γ token ids that q could have proposed.

    >>> p, q, draft = check_step_inputs([[0.5, 0.5]], [], [])
    >>> p.shape, q.shape, draft.shape
    ((1, 2), (0, 2), (0,))
    """
    draft = as_token_ids(draft)
    gamma = draft.size
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] != gamma + 1 or p.shape[1] == 0:
        raise ValueError(
            f"p must have shape (γ+1, V) = ({gamma + 1}, V) for a draft of {gamma} tokens; got {p.shape}"
        )
    vocab = p.shape[1]
    if gamma == 0 and q.size == 0:
        q = q.reshape(0, vocab)
    if q.shape != (gamma, vocab):
        raise ValueError(
            f"q must have shape (γ, V) = ({gamma}, {vocab}) to match the draft and p; got {q.shape}"
        )
    check_distributions("p", p)
    check_distributions("q", q)
    for i, token in enumerate(draft):
        if not 0 <= token < vocab:
            raise ValueError(f"draft[{i}] = {token} is out of range for a vocabulary of {vocab} tokens")
        if q[i, token] == 0:
            raise ValueError(
                f"q[{i}, {token}] = 0: the draft gave drafted token {token} zero probability at "
                f"position {i}, so it could not have proposed it"
            )
    return p, q, draft
