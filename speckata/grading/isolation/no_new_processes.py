"""A seccomp filter that lets a process start threads but no new process, and reach no other process
(for bubblewrap's --seccomp).

The sandboxed learner worker must not leave anything behind: a process started from learner code
(through ``os.fork``, or the C library's ``fork()`` reached with ctypes, which an audit hook cannot
see) could outlive the test's time limit. The PID namespace already dies with the sandbox; this
filter goes further and makes the kernel refuse the system calls that create a process:

- ``fork`` and ``vfork``: refused (EPERM);
- ``clone``: allowed only with CLONE_THREAD (a thread: torch's and OpenMP's pools), else EPERM;
- ``clone3``: its flags live in memory a filter cannot read, so it answers ENOSYS, and the C
  library falls back to ``clone``, which is checked as above;
- on x86-64, any call through the x32 ABI (numbers from 0x40000000): EPERM;
- ``ptrace``, ``process_vm_readv``, ``process_vm_writev``, ``kcmp``, ``pidfd_getfd`` (another
  process's memory, registers or files), ``unshare`` and ``setns`` (new or other namespaces):
  EPERM;
- ``prctl(PR_SET_PDEATHSIG, ...)``: EPERM, so the worker cannot clear the signal that kills it
  when its parent (bubblewrap, then the grader) dies. Other prctl options (thread names) pass.

The program is classic BPF (struct sock_filter: u16 code, u8 jt, u8 jf, u32 k), built here for
x86-64 and aarch64, the machines the kata runs on; ``filter_program()`` returns None elsewhere.
It reads ``struct seccomp_data``: the call's number at offset 0, the architecture at 4, and the
low 32 bits of the first argument (clone's flags) at 16, little-endian.
"""

from __future__ import annotations

import errno
import platform
import struct

# BPF instruction classes and fields, and seccomp's return values (linux/filter.h, linux/seccomp.h).
LOAD_WORD = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
JUMP_EQUAL = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
JUMP_AT_LEAST = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
JUMP_ANY_BIT = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
RETURN = 0x06 | 0x00  # BPF_RET | BPF_K
ALLOW = 0x7FFF0000
ERRNO = 0x00050000
CLONE_THREAD = 0x00010000
X32_SYSCALL_BIT = 0x40000000

PR_SET_PDEATHSIG = 1

# machine -> (AUDIT_ARCH value, fork, vfork, clone, clone3); aarch64 has no fork or vfork call.
ARCHITECTURES = {
    "x86_64": (0xC000003E, 57, 58, 56, 435),
    "aarch64": (0xC00000B7, None, None, 220, 435),
}
# machine -> (ptrace, process_vm_readv, process_vm_writev, kcmp, pidfd_getfd, unshare, setns), refused
OTHER_PROCESSES = {
    "x86_64": (101, 310, 311, 312, 438, 272, 308),
    "aarch64": (117, 270, 271, 272, 438, 97, 268),
}
PRCTL = {"x86_64": 157, "aarch64": 167}


def instruction(code: int, k: int, jump_true: int = 0, jump_false: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jump_true, jump_false, k)


def filter_program(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine (``platform.machine()``), or None where it is not known."""
    machine = machine or platform.machine()
    known = ARCHITECTURES.get(machine)
    if known is None:
        return None
    arch, fork, vfork, clone, clone3 = known
    refuse, unsupported = ERRNO | errno.EPERM, ERRNO | errno.ENOSYS
    refused_numbers = [n for n in (fork, vfork, *OTHER_PROCESSES[machine]) if n is not None]
    body = [instruction(LOAD_WORD, 0)]  # the call's number
    if arch == ARCHITECTURES["x86_64"][0]:
        body.append(instruction(JUMP_AT_LEAST, X32_SYSCALL_BIT, 0, 1))
        body.append(instruction(RETURN, refuse))
    for number in refused_numbers:
        body.append(instruction(JUMP_EQUAL, number, 0, 1))
        body.append(instruction(RETURN, refuse))
    body += [
        instruction(JUMP_EQUAL, PRCTL[machine], 0, 3),
        instruction(LOAD_WORD, 16),  # prctl's option (low 32 bits)
        instruction(JUMP_EQUAL, PR_SET_PDEATHSIG, 0, 1),
        instruction(RETURN, refuse),
        instruction(LOAD_WORD, 0),  # the call's number again
        instruction(JUMP_EQUAL, clone3, 0, 1),
        instruction(RETURN, unsupported),
        instruction(JUMP_EQUAL, clone, 0, 3),
        instruction(LOAD_WORD, 16),  # clone's flags (low 32 bits)
        instruction(JUMP_ANY_BIT, CLONE_THREAD, 1, 0),
        instruction(RETURN, refuse),
        instruction(RETURN, ALLOW),
    ]
    # A call made for another architecture (a 32-bit binary on x86-64) is refused outright.
    head = [instruction(LOAD_WORD, 4), instruction(JUMP_EQUAL, arch, 1, 0), instruction(RETURN, refuse)]
    return b"".join(head + body)
