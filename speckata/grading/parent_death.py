"""A process that must not outlive the one that started it (the guarded pytest run, the isolated
learner worker): the kernel kills it when its parent dies."""

from __future__ import annotations

import os
import signal


def die_with_parent(parent: int) -> None:
    """Ask Linux for SIGKILL when the parent dies (PR_SET_PDEATHSIG); elsewhere a no-op. If the
    parent was already gone before the request took effect, exit now."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)
