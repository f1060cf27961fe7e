"""Exercise 03-speedup: reference solution. The exercise text is in exercises/ex03_speedup.py."""

import math
import numbers

import numpy as np


def check_alpha(alpha) -> float:
    if not isinstance(alpha, numbers.Real) or not 0.0 <= alpha <= 1.0:  # NaN fails the comparison too
        raise ValueError(f"alpha must be a probability in [0, 1]; got {alpha!r}")
    return float(alpha)


def check_count(name: str, value, smallest: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer; got {value!r} ({type(value).__name__})")
    if value < smallest:
        problem = "is negative" if value < 0 else f"is below {smallest}"
        raise ValueError(f"{name} = {value} {problem}: it must be >= {smallest}")
    return int(value)


def check_cost(c) -> float:
    if not isinstance(c, numbers.Real) or not math.isfinite(c):
        raise ValueError(f"c, the draft's cost relative to the target, must be a finite number; got {c!r}")
    if c < 0:
        raise ValueError(f"c = {c!r} is negative: the draft's cost relative to the target must be >= 0")
    return float(c)


def expected_tokens_per_pass(alpha, gamma) -> float:
    alpha, gamma = check_alpha(alpha), check_count("gamma", gamma, 0)
    if alpha == 1.0:
        return float(gamma + 1)
    if alpha == 0.0:
        return 1.0
    # 1 - alpha**(gamma+1) as -expm1((gamma+1)·ln alpha): no cancellation when alpha is near 1.
    # (1 - alpha is exact there: two floats within a factor of 2 subtract without rounding.)
    return -math.expm1((gamma + 1) * math.log(alpha)) / (1.0 - alpha)


def walltime_speedup(alpha, gamma, c) -> float:
    tokens = expected_tokens_per_pass(alpha, gamma)
    return tokens / (check_count("gamma", gamma, 0) * check_cost(c) + 1.0)


def optimal_gamma(alpha, c, max_gamma=32) -> int:
    alpha, c = check_alpha(alpha), check_cost(c)
    max_gamma = check_count("max_gamma", max_gamma, 1)
    best_gamma, best_speedup = 1, walltime_speedup(alpha, 1, c)
    for gamma in range(2, max_gamma + 1):
        speedup = walltime_speedup(alpha, gamma, c)
        if speedup > best_speedup:  # strictly better: a tie keeps the smaller gamma
            best_gamma, best_speedup = gamma, speedup
    return best_gamma
