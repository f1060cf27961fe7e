"""Isolation sample (01-speculative-step): crashes the interpreter (a segmentation fault).

It writes through a pointer to address 8, which no process may map (Linux keeps the lowest 64 KiB
unmapped: vm.mmap_min_addr), so it faults as a learner's bad pointer would. A signal sent to itself
would not do: the sandboxed worker is its PID namespace's PID 1, shielded from its own signals.
"""

import ctypes


def speculative_step(p, q, draft, rng) -> list[int]:
    ctypes.memset(8, 0, 1)
    return [0]
