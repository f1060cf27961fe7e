"""Input checks shared by every verify rule (exercise 01 and the ones built on it).

A bad input must fail loudly with a ``ValueError`` that names the problem, never with a NaN
result or a bare ``IndexError`` from deep inside the algorithm. Each message contains a fixed
key phrase ("shape", "out of range", "zero probability", "negative", "NaN", "sum to 1",
"integer", "complex") that the grading suites look for.

Rows must sum to 1 within a tolerance that depends on the dtype they arrive in (1e-6 for float64
and Python floats, 1e-4 for float32: see speckata/tolerance.py).
"""

from __future__ import annotations

import numpy as np

from speckata.token_ids import checked_token_ids
from speckata.tolerance import row_sum_tolerance


def check_distributions(name: str, rows: np.ndarray, tolerance: float | None = None) -> None:
    """Rows of probabilities: finite, non-negative, each summing to 1 (within the dtype's tolerance)."""
    tolerance = row_sum_tolerance(rows.dtype) if tolerance is None else tolerance
    sums = rows.sum(axis=-1, dtype=np.float64)
    low = rows.min() if rows.size else 0.0
    if low >= 0 and (np.abs(sums - 1.0) <= tolerance).all():  # NaN and inf fail both tests
        return
    # Something is wrong: name the first problem, in this order.
    if np.isnan(rows).any():
        raise ValueError(f"{name} contains NaN")
    if not np.isfinite(rows).all():
        raise ValueError(f"{name} contains an infinite entry")
    if (rows < 0).any():
        i, j = np.argwhere(rows < 0)[0]
        raise ValueError(f"{name}[{i}, {j}] = {rows[i, j]} is negative: probabilities must be >= 0")
    bad = np.flatnonzero(np.abs(sums - 1.0) > tolerance)
    if bad.size:
        i = bad[0]
        raise ValueError(f"{name} row {i} sums to {sums[i]!r}; every row must sum to 1 (within {tolerance:g})")


def as_probability_rows(name: str, values) -> tuple[np.ndarray, float]:
    """``values`` as float64, with the row-sum tolerance of the dtype it arrived in."""
    array = np.asarray(values)
    if array.dtype.kind == "f":  # the common case: a float array (float64, float32, float16)
        return array.astype(np.float64), row_sum_tolerance(array.dtype)
    if np.iscomplexobj(array):
        raise ValueError(f"{name} holds complex numbers; probabilities must be real")
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.number) or array.size == 0):
        raise ValueError(f"{name} must hold numbers; got dtype {array.dtype}")
    tolerance = row_sum_tolerance(array.dtype) if np.issubdtype(array.dtype, np.floating) else row_sum_tolerance("float64")
    return array.astype(np.float64), tolerance


def as_token_ids(draft, vocab_size: int | None = None) -> np.ndarray:
    """A 1-D int64 array of token ids from a list, tuple or integer (or whole-float) array.

    With ``vocab_size``, every id must lie in [0, vocab_size). Values are checked as given, before
    any cast (inf, 2.0**63 or a uint64 2**64 - 1 are named as they are, not as a wrapped int64).
    """
    ids = np.asarray(draft)
    if ids.ndim != 1:
        raise ValueError(f"draft must be a 1-D sequence of token ids; got shape {ids.shape}")
    if ids.size and (ids.dtype == bool or not (np.issubdtype(ids.dtype, np.integer)
                                               or np.issubdtype(ids.dtype, np.floating))):
        raise ValueError(f"draft must hold integer token ids; got dtype {ids.dtype}")
    limit = vocab_size if vocab_size is not None else 2**63
    return np.array(checked_token_ids("draft", ids.tolist(), limit, allow_whole_floats=True), dtype=np.int64)


def check_step_inputs(p, q, draft):
    """Validate one verify step's inputs and return them as float64 / int64 arrays.

    p: (γ+1, V) target rows; q: (γ, V) draft rows; draft: γ token ids that q could have proposed.

    >>> p, q, draft = check_step_inputs([[0.5, 0.5]], [], [])
    >>> p.shape, q.shape, draft.shape
    ((1, 2), (0, 2), (0,))
    """
    gamma = np.asarray(draft).shape[0] if np.ndim(draft) == 1 else as_token_ids(draft).size
    p, p_tolerance = as_probability_rows("p", p)
    q, q_tolerance = as_probability_rows("q", q)
    if p.ndim != 2 or p.shape[0] != gamma + 1 or p.shape[1] == 0:
        raise ValueError(
            f"p must have shape (γ+1, V) = ({gamma + 1}, V) for a draft of {gamma} tokens; got {p.shape}"
        )
    vocab = p.shape[1]
    if gamma == 0 and q.shape in ((0,), (0, vocab)):
        q = q.reshape(0, vocab)
    if q.shape != (gamma, vocab):
        raise ValueError(
            f"q must have shape (γ, V) = ({gamma}, {vocab}) to match the draft and p; got {q.shape}"
        )
    draft = as_token_ids(draft, vocab)
    check_distributions("p", p, p_tolerance)
    check_distributions("q", q, q_tolerance)
    for i, token in enumerate(draft):
        if q[i, token] == 0:
            raise ValueError(
                f"q[{i}, {token}] = 0: the draft gave drafted token {token} zero probability at "
                f"position {i}, so it could not have proposed it"
            )
    return p, q, draft
