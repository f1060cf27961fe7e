"""Sample learner file for the kata command's tests (01-speculative-step): correct, and prints 5 MB per call.

A debugging print of a huge array, left in: every call writes FLOOD (5 MB; the report that came in
printed 200 MB per call, ran 119 s, grew to 5.4 GB and read as an endless loop). The grader keeps
the first 64 KB of a test's output and only counts the rest, so this is graded in bounded memory.
"""

import numpy as np

from speckata import check_step_inputs, sample

FLOOD = "x" * 5_000_000


def speculative_step(p, q, draft, rng) -> list[int]:
    print(FLOOD)
    p, q, draft = check_step_inputs(p, q, draft)
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
