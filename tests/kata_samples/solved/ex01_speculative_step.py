"""Sample learner file for the kata CLI's tests (01-speculative-step): solved, with debug prints."""

import numpy as np

from speckata import check_step_inputs, sample


def speculative_step(p, q, draft, rng) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    print("DEBUG-FROM-LEARNER draft =", draft)  # the display must not be disturbed by this
    tokens = []
    for i, x in enumerate(draft):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            tokens.append(int(x))
            continue
        residual = np.maximum(p[i] - q[i], 0.0)
        if residual.sum() <= 1e-12:
            residual = p[i]
        tokens.append(sample(residual, rng))
        return tokens
    tokens.append(sample(p[len(draft)], rng))
    return tokens
