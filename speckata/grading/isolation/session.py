"""The isolated grading of one pytest session: the folder's copy, the worker, the proxy.

``start`` (from the plugin's ``--isolate``) copies the graded folder's regular files into a temporary
directory (folder_copy.py; the learner's code runs on a copy, so it cannot change the folder it was
handed in) and prepares a
RemoteLearner; the worker itself starts at the first lookup. ``stop`` ends the worker and removes
the copy.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from speckata.grading.isolation.folder_copy import copy_folder
from speckata.grading.target import shown_path
from speckata.manifest import repo_root

if TYPE_CHECKING:  # imported in start(): every pytest run loads this module, few of them isolate
    from speckata.grading.isolation.remote import RemoteLearner

DEFAULT_MEMORY_MB = 4096  # torch alone maps about 0.7 GB of address space; exercise 11 trains a small model

_learner: RemoteLearner | None = None
_scratch: Path | None = None


def start(folder: Path, memory_mb: int = DEFAULT_MEMORY_MB, sandboxed: bool = True) -> RemoteLearner:
    from speckata.grading.isolation.connection import WorkerConnection
    from speckata.grading.isolation.remote import RemoteLearner

    global _learner, _scratch
    stop()
    _scratch = Path(tempfile.mkdtemp(prefix="speckata-isolated-"))
    copy = _scratch / "learner" / (folder.name or "folder")  # the sandbox sees it read-only and fills its own from it
    copy_folder(folder, copy)  # regular files only, at most folder_copy.COPY_LIMIT: ValueError beyond
    connection = WorkerConnection(copy, shown_path(folder), repo_root(), memory_mb, _scratch, sandboxed)
    _learner = RemoteLearner(connection)
    return _learner


def current() -> RemoteLearner | None:
    """The session's RemoteLearner when grading in isolation, else None (learner code in-process)."""
    return _learner


def stop() -> None:
    global _learner, _scratch
    if _learner is not None:
        _learner.connection.kill()
        _learner = None
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)
        _scratch = None
