"""The grader's copy of a learner's folder, bounded: regular files and folders only, at most COPY_LIMIT.

The copy is what the sandbox sees (read-only) and fills its own sized tmpfs from, so it must fit
there. Sizes are the files' apparent sizes, read from ``lstat`` before anything is copied: a
sparse 2 GiB file is refused without being read. Symbolic links, FIFOs, sockets and device files
are not copied (a link could point at anything of the grader's; a FIFO would block the copy).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

COPY_LIMIT = 16 * 1024 * 1024  # bytes of a learner's folder kata grade copies (sandbox: bubblewrap.COPY_BYTES)
FILE_COUNT_LIMIT = 2000
SKIPPED_FOLDERS = {"__pycache__", ".git", ".ipynb_checkpoints"}


def plan_copy(folder: Path) -> tuple[list[tuple[Path, int]], str | None]:
    """The regular files to copy (relative path, size) and why the folder cannot be copied (None: it can)."""
    files, total = [], 0
    for parent, folders, names in os.walk(folder, followlinks=False):
        folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS
                            and not os.path.islink(os.path.join(parent, f)))
        for name in sorted(names):
            path = Path(parent) / name
            status = path.lstat()
            if not stat.S_ISREG(status.st_mode):
                continue
            total += status.st_size
            files.append((path.relative_to(folder), status.st_size))
            if total > COPY_LIMIT:
                return files, (f"the folder holds more than {COPY_LIMIT // (1024 * 1024)} MB of files ({path.relative_to(folder)} "
                               f"alone is {status.st_size / 1e6:,.1f} MB): kata grade copies at most that much; "
                               "remove what is not your code")
            if len(files) > FILE_COUNT_LIMIT:
                return files, f"the folder holds more than {FILE_COUNT_LIMIT} files: kata grade copies at most that many"
    return files, None


def copy_folder(folder: Path, copy: Path) -> None:
    """Copy ``folder``'s regular files into ``copy``; ValueError saying why when it is over the limits."""
    files, problem = plan_copy(folder)
    if problem:
        raise ValueError(problem)
    copy.mkdir(parents=True, exist_ok=True)
    for relative, size in files:
        target = copy / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(folder / relative, "rb") as source:
            target.write_bytes(source.read(size))  # what lstat declared, even if the file grows meanwhile
