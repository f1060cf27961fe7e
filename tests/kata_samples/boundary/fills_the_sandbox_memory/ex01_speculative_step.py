"""Boundary probe (01-speculative-step): pins memory in the sandbox's tmpfs mounts (/tmp, /dev, /dev/shm).

A tmpfs is RAM outside the worker's own memory limit; /tmp and /dev were unsized (half the RAM
each). This sample writes up to 1 GiB into each and raises if /tmp took more than 128 MB or /dev
took anything; so it is solved only when the mounts are sized (and /dev read-only).
"""

import os

import numpy as np

from speckata import check_step_inputs, sample

CHUNK = b"x" * (1 << 20)


def written(folder: str, most: int = 1024) -> int:
    total = 0
    try:
        with open(os.path.join(folder, "speckata-probe-fill"), "wb") as file:
            for _ in range(most):
                file.write(CHUNK)
                file.flush()
                total += 1
    except OSError:
        pass
    finally:
        try:
            os.remove(os.path.join(folder, "speckata-probe-fill"))
        except OSError:
            pass
    return total


FILLED = []  # the fill runs at the first call only (the statistical test makes 20,000)


def speculative_step(p, q, draft, rng) -> list[int]:
    if not FILLED:
        FILLED.append((written("/tmp"), written("/dev", 4), written("/dev/shm", 4)))
    tmp, dev, shm = FILLED[0]
    if tmp > 128 or dev or shm:
        raise RuntimeError(f"wrote {tmp} MB to /tmp, {dev} MB to /dev, {shm} MB to /dev/shm")
    return honest_step(p, q, draft, rng)


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
