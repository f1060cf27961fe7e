"""The pristine stub of an exercise: the newest version committed in git that is still a stub.

A learner may commit their own work, so HEAD's version is not necessarily the stub. Walking the
file's history from the newest commit, the first version that still carries the exercise's
``TODO(<id>)`` marker and one ``raise NotImplementedError`` per function is taken as the stub
(tests/maintainer/test_stubs_are_resettable.py checks that every stub is recognised this way).
"""

from __future__ import annotations

import hashlib
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


def is_committed_stub(root: Path, exercise: Exercise, path: Path) -> bool:
    """Whether the file at ``path`` is the exercise's committed stub, with as few git calls as can be:
    a file that does not look like a stub is not one (no git at all), and one equal to HEAD's
    version, which looks like a stub, is the stub (one `git ls-tree` for every exercise). Only
    otherwise is the history walked (committed_stub). `kata` asks this of every exercise on each
    command, so the shortcuts spare each command about forty git processes."""
    data = path.read_bytes()
    text = data.decode(errors="replace")
    if not looks_pristine(text, exercise):
        return False
    if head_blobs(root).get(f"exercises/{exercise.file}") == blob_id(data):
        return True
    stub = committed_stub(root, exercise)
    return stub is not None and text == stub


@lru_cache(maxsize=None)
def head_blobs(root: Path) -> dict[str, str]:
    """Path (relative to ``root``) -> git blob id of every file under exercises/ at HEAD."""
    listing = git(root, "ls-tree", "HEAD", "--", "exercises/") or ""
    blobs = {}
    for line in listing.splitlines():
        meta, _, name = line.partition("\t")
        if meta.split()[1:2] == ["blob"]:
            blobs[name] = meta.split()[2]
    return blobs


def blob_id(data: bytes) -> str:
    """The id git gives a file's content (SHA-1 of a ``blob <size>`` header and the bytes)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
