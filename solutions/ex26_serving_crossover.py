"""Exercise 26-serving-crossover: reference solution. The exercise text is in exercises/ex26_serving_crossover.py."""

import numbers

import numpy as np

TIE_TOLERANCE = 1e-9  # throughputs within this relative distance of the best count as a tie


def check_costs(name: str, costs, shape_text: str) -> np.ndarray:
    try:
        costs = np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers of shape {shape_text}; got {costs!r:.80}") from None
    if not np.all(np.isfinite(costs)):
        raise ValueError(f"{name} holds a NaN or infinite cost: every cost must be finite")
    if np.any(costs < 0):
        raise ValueError(f"{name} holds a negative cost ({costs.min()!r}): a pass takes time >= 0")
    return costs


def check_inputs(target_cost, draft_cost, batch_sizes, alpha):
    """The four inputs as (float64 (num_B, N, num_L), float64 (num_B, num_L), int64 (num_B,), float)."""
    target = check_costs("target_cost", target_cost, "(num_B, N, num_L)")
    if target.ndim != 3 or 0 in target.shape:
        raise ValueError(f"target_cost must have the shape (num_B, N, num_L), none of them 0; got shape {target.shape}")
    if np.any(target == 0):
        raise ValueError("target_cost holds a cost of 0: a target pass must take a positive time")
    num_b, _, num_l = target.shape
    draft = check_costs("draft_cost", draft_cost, "(num_B, num_L)")
    if draft.shape != (num_b, num_l):
        raise ValueError(f"draft_cost must have the shape (num_B, num_L) = {(num_b, num_l)}; got shape {draft.shape}")
    sizes = list(batch_sizes) if np.ndim(batch_sizes) == 1 else None
    if sizes is None or len(sizes) != num_b:
        raise ValueError(f"batch_sizes must be 1-D with shape ({num_b},), one per row of target_cost; got {batch_sizes!r:.80}")
    for size in sizes:
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
            raise ValueError(f"batch_sizes must hold integers; got {size!r} ({type(size).__name__})")
        if size < 1:
            raise ValueError(f"batch_sizes must each be at least 1; got {size}")
    sizes = np.array(sizes, dtype=np.int64)
    if np.any(np.diff(sizes) <= 0):
        raise ValueError(f"batch_sizes must be strictly increasing; got {sizes.tolist()}")
    if not isinstance(alpha, numbers.Real) or not 0.0 <= alpha <= 1.0:  # NaN fails the comparison too
        raise ValueError(f"alpha must be an acceptance rate in [0, 1]; got {alpha!r}")
    return target, draft, sizes, float(alpha)


def serving_throughput(target_cost, draft_cost, batch_sizes, alpha) -> np.ndarray:
    target, draft, sizes, alpha = check_inputs(target_cost, draft_cost, batch_sizes, alpha)
    gammas = np.arange(target.shape[1])
    tokens_per_row = np.cumsum(alpha ** gammas)  # E(alpha, g) = 1 + alpha + ... + alpha**g
    round_time = target + gammas[None, :, None] * draft[:, None, :]  # g draft passes, one target pass of g + 1
    return sizes[:, None, None] * tokens_per_row[None, :, None] / round_time


def best_gamma(target_cost, draft_cost, batch_sizes, alpha) -> np.ndarray:
    throughput = serving_throughput(target_cost, draft_cost, batch_sizes, alpha)
    best = throughput.max(axis=1, keepdims=True)
    near_best = throughput >= (1 - TIE_TOLERANCE) * best
    return np.argmax(near_best, axis=1).astype(np.int64)  # argmax of booleans: the first True, the smallest g


def largest_winning_batch(target_cost, draft_cost, batch_sizes, alpha) -> np.ndarray:
    gammas = best_gamma(target_cost, draft_cost, batch_sizes, alpha)
    sizes = np.asarray(list(batch_sizes), dtype=np.int64)
    wins = gammas >= 1
    return np.array([sizes[wins[:, l]].max(initial=0) for l in range(wins.shape[1])], dtype=np.int64)
