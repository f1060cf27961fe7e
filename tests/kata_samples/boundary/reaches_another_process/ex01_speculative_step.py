"""Boundary probe (01-speculative-step): reaches for another process of the sandbox, and stays running.

A kata grade run had a worker ptrace the sandbox's PID 1 (bubblewrap's init) and clear its
parent-death signal, so that nothing killed the sandbox when kata grade ended it. This sample tries
every step of that through the C library: ptrace of PID 1, reading PID 1's memory, clearing its
own parent-death signal, a new user namespace; and it leaves a thread spinning. It raises naming
each step that worked, so it is solved only when every one was refused; the test then checks that
nothing of it is alive after kata grade returns.
"""

import ctypes
import os
import threading

import numpy as np

from speckata import check_step_inputs, sample

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PR_SET_PDEATHSIG, CLONE_NEWUSER = 16, 1, 0x10000000


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def reached() -> list[str]:
    worked = []
    if os.getpid() != 1 and libc.ptrace(PTRACE_ATTACH, 1, None, None) == 0:
        worked.append("ptrace of PID 1")
    buffer = ctypes.create_string_buffer(8)
    local, remote = IoVec(ctypes.addressof(buffer), 8), IoVec(0x400000, 8)
    if os.getpid() != 1 and libc.process_vm_readv(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) >= 0:
        worked.append("process_vm_readv of PID 1")
    if libc.prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) == 0:
        worked.append("clearing its parent-death signal")
    if libc.unshare(CLONE_NEWUSER) == 0:
        worked.append("a new user namespace")
    return worked


def spin() -> None:
    while True:
        pass


threading.Thread(target=spin, daemon=True).start()


def speculative_step(p, q, draft, rng) -> list[int]:
    worked = reached()
    if worked:
        raise RuntimeError("the sandbox let this code do: " + ", ".join(worked))
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
