"""A process that must not outlive the one that started it (the guarded pytest run, the isolated
learner worker): the kernel kills it when its parent dies."""

from __future__ import annotations

import os
import signal


def die_with_parent(parent: int | None) -> None:
    """Ask Linux for SIGKILL when the parent dies (PR_SET_PDEATHSIG); elsewhere a no-op. If the
    parent was already gone before the request took effect, exit now. ``parent`` None: a process
    in its own PID namespace (a sandboxed worker), whose parent's pid it cannot know."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)
