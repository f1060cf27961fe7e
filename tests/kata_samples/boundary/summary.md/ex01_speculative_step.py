"""Exercise 01-speculative-step: reference solution. The exercise text is in exercises/ex01_speculative_step.py."""

import numpy as np

from speckata import check_step_inputs, sample

# A residual with no more mass than this comes from rounding alone (p[i] and q[i] agree).
RESIDUAL_MASS_EPS = 1e-12


def speculative_step(p, q, draft, rng) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    tokens = []
    for i, x in enumerate(draft):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            tokens.append(int(x))
            continue
        residual = np.maximum(p[i] - q[i], 0.0)
        if residual.sum() <= RESIDUAL_MASS_EPS:
            residual = p[i]
        tokens.append(sample(residual, rng))
        return tokens
    tokens.append(sample(p[len(draft)], rng))
    return tokens
