"""The input checks of exercise 27-adaptive-draft-length's rules (given to the learner).

Every ValueError names its argument: "threshold", "beta", "initial_alpha", "ema", "costs", "probe_every".

>>> check_unit_interval("threshold", 0.3)
0.3
>>> check_unit_interval("threshold", 1.5)
Traceback (most recent call last):
...
ValueError: threshold must be a real number in [0, 1]; got 1.5
>>> check_beta(0.0)
Traceback (most recent call last):
...
ValueError: beta must be a real number in (0, 1] (the weight of the newest round); got 0.0
>>> check_probe_every(None), check_probe_every(3)
(None, 3)
"""

from __future__ import annotations

import numbers


def check_unit_interval(name: str, value) -> float:
    """value as a float in [0, 1]; NaN, bools and non-numbers are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a real number in [0, 1]; got {value!r}")
    return float(value)


def check_beta(beta) -> float:
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not 0.0 < beta <= 1.0:
        raise ValueError(f"beta must be a real number in (0, 1] (the weight of the newest round); got {beta!r}")
    return float(beta)


def check_costs(costs):
    """None, or a (target_cost, draft_cost, batch_sizes) triple (its tables are checked by exercise 26's functions)."""
    if costs is not None and (not isinstance(costs, (tuple, list)) or len(costs) != 3):
        raise ValueError("costs must be None or a triple (target_cost (num_B, N), draft_cost (num_B,), batch_sizes); "
                         f"got {costs!r:.80}")
    return costs


def check_probe_every(probe_every):
    """None (never probe), or an integer N >= 1: the rounds at gamma 0 before a probe round of gamma 1."""
    if probe_every is None:
        return None
    if isinstance(probe_every, bool) or not isinstance(probe_every, numbers.Integral) or probe_every < 1:
        raise ValueError(f"probe_every must be None or an integer >= 1 (rounds at gamma 0 before a probe); got {probe_every!r}")
    return int(probe_every)
