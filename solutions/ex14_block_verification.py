"""Exercise 14-block-verification: reference solution. The exercise text is in exercises/ex14_block_verification.py."""

import numpy as np

from speckata import check_step_inputs, sample

# A residual with no more mass than this comes from rounding alone (as in exercise 01).
RESIDUAL_MASS_EPS = 1e-12
RULES = ("token", "block")
MAX_BLOCKS = 10**6  # V**γ drafted blocks the enumeration will walk


def block_weights(p, q, draft):
    """The weights p_0..p_γ and the stopping weights h_1..h_γ (h[0] is unused)."""
    gamma = len(draft)
    weights, stops = [1.0], [0.0]
    for i in range(1, gamma + 1):
        x = draft[i - 1]
        weights.append(min(weights[i - 1] * p[i - 1, x] / q[i - 1, x], 1.0))
        if i == gamma:
            stops.append(weights[i])
            continue
        surplus = np.maximum(weights[i] * p[i] - q[i], 0.0).sum()
        # No residual mass: stopping here has probability 0 (and 0/0 when p_i = 1).
        stops.append(0.0 if surplus <= RESIDUAL_MASS_EPS else surplus / (surplus + 1.0 - weights[i]))
    return weights, stops


def block_verify(p, q, draft, rng) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    gamma = len(draft)
    etas = [rng.random() for _ in range(gamma)]
    weights, stops = block_weights(p, q, draft)
    tau = 0
    for i in range(1, gamma + 1):
        if etas[i - 1] < stops[i]:
            tau = i
    tokens = [int(x) for x in draft[:tau]]
    if tau == gamma:
        tokens.append(sample(p[gamma], rng))
        return tokens
    residual = np.maximum(weights[tau] * p[tau] - q[tau], 0.0)
    if residual.sum() <= RESIDUAL_MASS_EPS:
        residual = p[tau]
    tokens.append(sample(residual, rng))
    return tokens


def expected_accepted(p, q, rule) -> float:
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}; got {rule!r}")
    q = np.asarray(q, dtype=np.float64)
    draft = q.argmax(axis=1) if q.ndim == 2 and q.shape[1] > 0 else []
    p, q, _ = check_step_inputs(p, q, draft)  # any draft q could propose: only the shapes and rows matter
    gamma, vocab = q.shape
    if vocab**gamma > MAX_BLOCKS:
        raise ValueError(f"too many blocks to enumerate: V**γ = {vocab}**{gamma} > {MAX_BLOCKS}")
    total = 0.0
    # Walk every drafted prefix once: (its length, its chance under q, its weight under the rule).
    prefixes = [(0, 1.0, 1.0)]
    while prefixes:
        length, chance, weight = prefixes.pop()
        if length == gamma:
            continue
        for x in np.flatnonzero(q[length]):  # a token q gives no mass is never drafted
            ratio = p[length, x] / q[length, x]
            # block: p_i = min(p_{i-1} · ratio, 1); token: the product of min(ratio, 1)
            longer = min(weight * ratio, 1.0) if rule == "block" else weight * min(ratio, 1.0)
            extended = chance * q[length, x]
            total += extended * longer  # P(at least length + 1 drafts kept, and this prefix)
            prefixes.append((length + 1, extended, longer))
    return float(total)
