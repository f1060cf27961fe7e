"""The given sampler: inverse-CDF sampling with exactly one ``rng.random()`` call.

Every exercise that samples a token does it through this function (or its torch twin), so the
grader can replay a fixed stream of uniforms and know exactly which token each one must pick.
"""

from __future__ import annotations

import numpy as np


def sample(probs, rng) -> int:
    """Draw one index from ``probs`` with a single ``u = rng.random()``.

    Returns the first index whose cumulative probability, normalised by the total, exceeds u.
    ``probs`` need not sum to one (it is normalised here), but it must be non-negative, finite
    and have positive total. A zero-probability index is never returned: when rounding leaves
    the last cumulative sum below u, the last index with positive probability is returned.

    >>> from speckata import ReplayRNG
    >>> sample([0.3, 0.3, 0.4], ReplayRNG([0.2]))
    0
    >>> sample([0.0, 0.2, 0.1], ReplayRNG([0.9]))   # normalised: [0, 2/3, 1/3]
    2
    """
    weights = np.asarray(probs, dtype=np.float64)
    if weights.ndim != 1 or weights.size == 0:
        raise ValueError(f"sample needs a non-empty 1-D array of probabilities; got shape {weights.shape}")
    low, high = float(weights.min()), float(weights.max())  # NaN fails every comparison below
    if low >= 0 and 0 < high and high * weights.size < 1e300:  # the common case: finite, >= 0, cannot overflow
        total = weights.sum()
    else:
        weights, total = _checked_weights(weights)
    u = rng.random()
    if not isinstance(u, (float, int, np.floating, np.integer)) or isinstance(u, bool) or not 0 <= u < 1:
        raise ValueError(f"sample: rng.random() returned {u!r}; a uniform must be a number in [0, 1)")
    cdf = np.cumsum(weights) / total
    index = int(np.searchsorted(cdf, u, side="right"))  # first index with cdf > u
    if index >= weights.size or weights[index] == 0:
        index = int(np.flatnonzero(weights)[-1])
    return index


def _checked_weights(weights: np.ndarray) -> tuple[np.ndarray, float]:
    """The slow path of ``sample``: name what is wrong, or rescale entries whose sum overflows."""
    if not np.all(np.isfinite(weights)):
        raise ValueError("sample: the probabilities contain NaN or infinity")
    if np.any(weights < 0):
        raise ValueError("sample: the probabilities contain a negative entry")
    with np.errstate(over="ignore"):
        total = weights.sum()
    if total <= 0:
        raise ValueError("sample: the probabilities sum to zero; there is nothing to sample")
    if not np.isfinite(total):  # finite entries whose sum overflows (1e308 + 1e308): rescale first
        weights = weights / weights.max()
        total = weights.sum()
    return weights, total
