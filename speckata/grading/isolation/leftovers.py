"""After a folder is graded: is any of its sandboxes still alive? (`kata grade` asks.)

Each sandboxed worker is its PID namespace's PID 1, and the kernel ends a namespace's every process
when its PID 1 ends: a sandbox is alive exactly while its PID 1 is. connection.py appends each one
to a log file as it starts, by pid and start time (together they name one process for good; a
namespace's number is reused at once). A PID 1 still alive after the grading run ended outlived
it: it is killed here, and `kata grade` says so in the folder's results. This should find nothing;
it is the check that every sandbox ended with its run.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path



def start_time(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot, /proc/PID/stat's 22nd field): with the pid, it names
    one process for good (a pid alone may be reused)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[19])


def running(pid: int) -> bool:
    """Not a zombie (killed, waiting to be reaped: nothing of it runs) and not gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZXx"


def logged_sandboxes(log: Path) -> list[tuple[int, int]]:
    try:
        pairs = [line.split() for line in log.read_text().splitlines()]
    except OSError:
        return []
    return [(int(pid), int(started)) for pid, started in (p for p in pairs if len(p) == 2)]


def kill_leftovers(log: Path) -> list[int]:
    """Kill every sandbox named in ``log`` that is still alive; their pids (empty: none was left)."""
    left = []
    for pid, started in logged_sandboxes(log):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            continue  # gone
        try:
            if start_time(pid) == started and running(pid):  # checked with the pidfd held: the same process
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                left.append(pid)
        finally:
            os.close(pidfd)
    return left
