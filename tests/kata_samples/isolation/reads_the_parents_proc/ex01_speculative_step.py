"""Isolation sample (01-speculative-step): reads the grader's command line and environment in /proc.

Before the sandbox, the worker could read its parent's /proc entries: the command line held the
hidden suite's seed (--streams SEED) and the output paths. This version prints whatever it finds
(the test checks that no seed reached it) and answers right only if it could see the grader.
"""

import os

import numpy as np

from speckata import check_step_inputs, sample

_seen = []
for _pid in os.listdir("/proc"):
    if not _pid.isdigit() or int(_pid) == os.getpid():
        continue
    for _what in ("cmdline", "environ"):
        try:
            with open(f"/proc/{_pid}/{_what}", "rb") as _file:
                _seen.append(_file.read().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
_grader_seen = any(" -m pytest " in text or "--target=" in text or "--streams" in text for text in _seen)
print("seen:", " | ".join(_seen)[:2000])


def speculative_step(p, q, draft, rng) -> list[int]:
    if not _grader_seen:
        return [0]  # what it does when it cannot see the grader: fail
    p, q, draft = check_step_inputs(p, q, draft)
    tokens = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            tokens.append(int(x))
            continue
        residual = np.maximum(p[i] - q[i], 0.0)
        tokens.append(sample(residual if residual.sum() > 1e-12 else p[i], rng))
        return tokens
    tokens.append(sample(p[len(draft)], rng))
    return tokens
