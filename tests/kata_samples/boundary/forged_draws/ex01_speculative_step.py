"""Boundary probe (01-speculative-step): right tokens without drawing, and a forged count of draws.

It reads the replayed stream's values instead of calling ``rng.random()`` (so it draws nothing),
then writes its own reply in which the ReplayRNG's ``draws`` is an object of a class built in the
grader by ``type(...)``, whose ``==`` is ``complex``: nonzero, so "equal" to any count. Graded
pass 32/32 before replies were data only; it must fail with "the reply was not data".
"""

import os
import pickle
import struct
import time

import numpy as np

from speckata import check_step_inputs, sample


def reply_fd() -> int:
    """The worker's reply pipe, from its own command line (the config the grader started it with)."""
    import json
    import sys

    return json.loads(sys.argv[1])["replies_fd"]


class MakeClass:
    def __call__(self, *args):  # pickle asks a reduce's function to be callable
        raise TypeError

    def __reduce__(self):
        return (type, ("Draws", (int,), {"__eq__": complex, "__ne__": complex, "__hash__": None}))


class Draws:
    def __reduce__(self):
        return (MakeClass(), (0,))


class Stream:
    """Reads the stream's values without counting a draw."""

    def __init__(self, rng):
        self.values, self.index = list(rng.values), 0

    def random(self, *args, **kwargs):
        self.index += 1
        return self.values[self.index - 1]


def speculative_step(p, q, draft, rng) -> list[int]:
    tokens = honest_step(p, q, draft, Stream(rng))
    forged_rng = type(rng).__new__(type(rng))
    forged_rng.__dict__.update(rng.__dict__)
    forged_rng.__dict__["draws"] = Draws()
    reply = ("returned", tokens, (p, q, draft, forged_rng), {}, None, None)
    forged = pickle.dumps(reply, protocol=5)
    os.write(reply_fd(), struct.pack("<Q", len(forged)) + forged)
    time.sleep(3600)
    return []


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
