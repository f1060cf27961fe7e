"""Exercise 05-sampling-settings: reference solution. The exercise text is in exercises/ex05_sampling_settings.py."""

import math
import numbers

import numpy as np

from ex01_speculative_step import speculative_step
from ex04_greedy_step import greedy_step


def check_logits(logits) -> np.ndarray:
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim not in (1, 2) or logits.shape[-1] == 0:
        raise ValueError(f"logits must have shape (V,) or (rows, V) with V >= 1; got shape {logits.shape}")
    if np.isnan(logits).any():
        raise ValueError("the logits contain NaN")
    if np.isposinf(logits).any():
        raise ValueError("the logits contain +inf; only finite values and -inf (a masked token) are allowed")
    rows = logits.reshape(-1, logits.shape[-1])
    masked = np.flatnonzero(np.all(rows == -np.inf, axis=1))
    if masked.size:
        raise ValueError(f"row {masked[0]} of the logits is all -inf: no token is left to sample")
    return logits


def check_settings(temperature, top_k, top_p) -> None:
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) or not (math.isfinite(temperature) and temperature >= 0):
        raise ValueError(f"temperature must be a finite number >= 0; got {temperature!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1):
        raise ValueError(f"top_k must be None or an integer >= 1; got {top_k!r}")
    if top_p is not None and (isinstance(top_p, bool) or not isinstance(top_p, numbers.Real) or not 0 < top_p <= 1):
        raise ValueError(f"top_p must be None or a number in (0, 1]; got {top_p!r}")


def keep_only(probs: np.ndarray, order: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Zero all but the first counts[r] tokens of each row's ranking, then renormalise."""
    kept_in_order = np.arange(probs.shape[1]) < counts[:, None]
    keep = np.zeros_like(kept_in_order)
    np.put_along_axis(keep, order, kept_in_order, axis=1)
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum(axis=1, keepdims=True)


def warp(logits, temperature=1.0, top_k=None, top_p=None):
    logits = check_logits(logits)
    check_settings(temperature, top_k, top_p)
    rows = logits.reshape(-1, logits.shape[-1])
    vocab = rows.shape[1]
    if temperature == 0:  # the limit: all mass on the argmax (lowest index on a tie)
        probs = np.zeros_like(rows)
        probs[np.arange(len(rows)), np.argmax(rows, axis=1)] = 1.0
    else:
        # Subtract the row maximum before exp: exp(1000) overflows, exp(0) does not.
        weights = np.exp((rows - rows.max(axis=1, keepdims=True)) / temperature)
        probs = weights / weights.sum(axis=1, keepdims=True)
    order = np.argsort(-probs, axis=1, kind="stable")  # most likely first; ties: lower index first
    if top_k is not None and top_k < vocab:
        probs = keep_only(probs, order, np.full(len(rows), top_k))
    if top_p is not None:
        cumulative = np.cumsum(np.take_along_axis(probs, order, axis=1), axis=1)
        reached = cumulative >= top_p
        counts = np.where(reached.any(axis=1), reached.argmax(axis=1) + 1, vocab)
        probs = keep_only(probs, order, counts)
    return probs.reshape(logits.shape)


def speculative_step_from_logits(target_logits, draft_logits, draft, rng, temperature=1.0, top_k=None, top_p=None):
    target_logits = np.asarray(target_logits, dtype=np.float64)
    draft_logits = np.asarray(draft_logits, dtype=np.float64)
    if draft_logits.size == 0 and target_logits.ndim == 2:  # γ = 0: no draft rows at all
        draft_logits = draft_logits.reshape(0, target_logits.shape[1])
    p = warp(target_logits, temperature, top_k, top_p)
    q = warp(draft_logits, temperature, top_k, top_p)
    if temperature == 0:
        return greedy_step(p, q, draft)
    return speculative_step(p, q, draft, rng)
