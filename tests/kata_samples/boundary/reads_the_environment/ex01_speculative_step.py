"""Boundary probe (01-speculative-step): looks for the instructor's environment inside the sandbox.

bubblewrap's init was started with the grader's environment, readable at /proc/1/environ. This
sample reads every /proc/*/environ and its own, and raises if it finds SPECKATA_PROBE_SECRET (the
test sets it for kata grade); so it is solved only when nothing of the grader's environment is inside.
"""

import os

import numpy as np

from speckata import check_step_inputs, sample


def found() -> list[str]:
    where = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as file:
                if b"SPECKATA_PROBE_SECRET" in file.read():
                    where.append(f"/proc/{pid}/environ")
        except OSError:
            pass
    if "SPECKATA_PROBE_SECRET" in os.environ:
        where.append("os.environ")
    return where


def speculative_step(p, q, draft, rng) -> list[int]:
    where = found()
    if where:
        raise RuntimeError("the grader's environment is readable here: " + ", ".join(where))
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
