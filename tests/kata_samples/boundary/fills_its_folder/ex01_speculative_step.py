"""Boundary probe (01-speculative-step): fills its own writable folder, file after file.

The learner's writable copy had a cap per file (64 MB) but none in total: 1 GiB in 3.4 s. This
sample writes up to 1 GiB in 32 MB files into its working folder and raises if more than 128 MB
went in; so it is solved only when the folder has a total cap.
"""

import os

import numpy as np

from speckata import check_step_inputs, sample

CHUNK = b"x" * (1 << 20)


FILLED = []  # the fill runs at the first call only (the statistical test makes 20,000)


def speculative_step(p, q, draft, rng) -> list[int]:
    if not FILLED:
        FILLED.append(fill())
    if FILLED[0] > 128:
        raise RuntimeError(f"wrote {FILLED[0]} MB into its folder")
    return honest_step(p, q, draft, rng)


def fill() -> int:
    total = 0
    try:
        for index in range(32):
            with open(f"speckata-probe-{index}.bin", "wb") as file:
                for _ in range(32):
                    file.write(CHUNK)
                    file.flush()
                    total += 1
    except OSError:
        pass
    for index in range(32):
        try:
            os.remove(f"speckata-probe-{index}.bin")
        except OSError:
            pass
    return total


def honest_step(p, q, draft, rng) -> list[int]:
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
