"""What a learner worker does to itself before any learner code runs.

- Hard limits (``resource``): address space (``memory_mb``) and the size of a file it writes (its
  captured output), soft and hard, so the learner's code cannot raise them again.
- It dies with the grader (PR_SET_PDEATHSIG): a grader stopped by its timeout leaves no worker.
- An audit hook (``sys.addaudithook``; Python offers no way to remove one) refuses to open any
  file of the repository outside the ``speckata`` package and the virtual environment (so neither
  ``solutions/``, ``tests/`` nor ``.git`` can be read or imported), to start a process, and to send
  a signal to another process. The worker's ``sys.path`` does not hold the repository either.

What this does not stop: code that uses ctypes to call the C library directly gets past an audit
hook. The grader does not rely on the hook for its own safety: it runs in another process and
reads replies with a restricted unpickler (wire.py); the hook keeps the reference out of reach of
ordinary code (an import, ``open``, a subprocess running ``cat``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

OUTPUT_LIMIT_BYTES = 64 * 1024 * 1024  # what the learner's code may print in one worker's life

REFUSED_EVENTS = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                  "os.forkpty", "pty.spawn", "os.killpg")


def limit_resources(memory_mb: int) -> None:
    import resource

    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES))


def refuse_repository(repo_root: Path, allowed: list[Path]) -> None:
    """Install the audit hook: no file under ``repo_root`` but under ``allowed``; no new process."""
    root = os.path.realpath(repo_root) + os.sep
    open_paths = tuple(os.path.realpath(path) + os.sep for path in allowed)
    own_pid = os.getpid()
    realpath, fspath, getcwd = os.path.realpath, os.fspath, os.getcwd

    def refused(path) -> bool:
        if isinstance(path, int):
            return False
        try:
            text = fspath(path)
            if isinstance(text, bytes):
                text = text.decode(errors="replace")
            full = realpath(text if text.startswith("/") else f"{getcwd()}/{text}")
        except (TypeError, ValueError, OSError):
            return False
        full += os.sep
        return full.startswith(root) and not full.startswith(open_paths)

    def hook(event: str, args: tuple) -> None:
        if event == "open" and args and refused(args[0]):
            raise PermissionError(f"speckata: grading in isolation does not let your code open {args[0]!r}")
        if event.startswith(REFUSED_EVENTS):
            raise PermissionError(f"speckata: grading in isolation does not let your code start processes ({event})")
        if event == "os.kill" and args and args[0] != own_pid:
            raise PermissionError("speckata: grading in isolation does not let your code signal another process")

    sys.addaudithook(hook)


def remove_repository_from_path(repo_root: Path) -> None:
    root = os.path.realpath(repo_root)
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != root]
