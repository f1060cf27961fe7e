"""Isolation sample (01-speculative-step): crashes the interpreter (a segmentation fault).

It sends itself SIGSEGV, which ends a process exactly as an invalid memory access does
(``ctypes.string_at(0)`` crashes too where address 0 is not mapped, which some machines allow).
"""

import os
import signal


def speculative_step(p, q, draft, rng) -> list[int]:
    os.kill(os.getpid(), signal.SIGSEGV)
    return [0]
