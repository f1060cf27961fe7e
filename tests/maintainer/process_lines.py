"""The command lines of every process on the machine: what the kata grade tests look through for a
seed that must not show, or a sandbox that must not be left running."""

from __future__ import annotations

import os
from pathlib import Path


def command_lines() -> list[str]:
    lines = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
    return lines
