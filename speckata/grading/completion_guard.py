"""A pytest run reports success only if it reached its end.

Learner code can end the process itself (``os._exit(0)``, a crash, ``exec`` of another program),
and pytest would then exit with whatever code that chose, with no summary: a run that looks
green. So the plugin forks at start-up: the child runs the whole session, the parent only waits.
The child tells the parent through a pipe that it reached the end of the session; a child that
ends without saying so is reported, and its exit code is never 0.

The child dies with the parent (PR_SET_PDEATHSIG on Linux), so killing the pytest process a
caller started (a timeout in the kata command) also ends the grading it runs.
"""

from __future__ import annotations

import os
import signal
import sys

from speckata.grading.parent_death import die_with_parent

GUARDED_PID = "SPECKATA_GUARDED_PID"  # set in the child: a nested pytest in the same process does not fork again
REACHED_END, STOPPED = b"end", b"stopped"  # what the child may say; STOPPED: it already explained itself

_pipe: int | None = None


def guard_this_run() -> None:
    """Fork: the child returns and runs the session; the parent waits and exits for both."""
    global _pipe
    if not hasattr(os, "fork") or os.environ.get(GUARDED_PID) == str(os.getpid()):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        os.environ[GUARDED_PID] = str(os.getpid())
        die_with_parent(parent)
        _pipe = write_end
        return
    os.close(write_end)
    _wait_for(child, read_end)


def _wait_for(child: int, read_end: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the child, which reports it
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), lambda signum, frame: os.kill(child, signum))
    said = b""
    while chunk := _read(read_end):
        said += chunk
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code  # killed by a signal: the shell's convention
    if said not in (REACHED_END, STOPPED):
        os.write(2, (
            f"\nspeckata: the test run ended before pytest's summary (exit code {code}): code under test "
            "ended the process (os._exit? a crash?). Nothing after that point was graded, and this run "
            "does not count as passed.\n"
        ).encode())
        code = code or 1
    os._exit(code)


def _read(fd: int) -> bytes:
    while True:
        try:
            return os.read(fd, 64)
        except InterruptedError:
            continue


def tell_parent(message: bytes) -> None:
    """Say REACHED_END (or STOPPED) to the waiting parent; a no-op in an unguarded run."""
    global _pipe
    if _pipe is not None:
        os.write(_pipe, message)
        os.close(_pipe)
        _pipe = None


def run_unguarded_here() -> None:
    """For a process forked from a warm grader that reads its verdict from the report file alone
    (speckata/cli/warm_grader.py): no guard fork here, and a guard pipe inherited from the process
    it was forked from is dropped unused, so this run's end is never taken for that one's."""
    global _pipe
    os.environ[GUARDED_PID] = str(os.getpid())
    if _pipe is not None:
        os.close(_pipe)
        _pipe = None
