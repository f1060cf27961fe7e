"""The pristine stub of an exercise: the newest version committed in git that is still a stub.

A learner may commit their own work, so HEAD's version is not necessarily the stub. Walking the
file's history from the newest commit, the first version that still carries the exercise's
``TODO(<id>)`` marker and one ``raise NotImplementedError`` per function is taken as the stub
(tests/maintainer/test_stubs_are_resettable.py checks that every stub is recognised this way).
"""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path

from speckata.manifest import Exercise


def looks_pristine(text: str, exercise: Exercise) -> bool:
    return f"TODO({exercise.id})" in text and text.count("raise NotImplementedError") >= len(exercise.functions)


def git(root: Path, *args: str) -> str | None:
    try:
        run = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return run.stdout if run.returncode == 0 else None


@lru_cache(maxsize=None)
def committed_stub(root: Path, exercise: Exercise) -> str | None:
    """The stub as committed, or None (no git, or the file was never committed as a stub)."""
    relative = f"exercises/{exercise.file}"
    history = git(root, "log", "--format=%H", "--", relative)
    for commit in (history or "").split():
        # "<commit>:./path" is relative to cwd (the root), even when the root is not git's top level.
        text = git(root, "show", f"{commit}:./{relative}")
        if text is not None and looks_pristine(text, exercise):
            return text
    return None
