"""A pytest run reports success only if it reached its end.

Learner code can end the process itself (``os._exit(0)``, a crash, ``exec`` of another program),
and pytest would then exit with whatever code that chose, with no summary: a run that looks
green. So the plugin forks at start-up: the child runs the whole session, the parent only waits.
The child tells the parent through a pipe that it reached the end of the session; a child that
ends without saying so is reported, and its exit code is never 0.

The child also names each test as it starts, so a run that ends early is explained: the test it
was in, and how it ended (an exit code, or a signal such as SIGSEGV). Learner code runs only inside
tests, so an end during a test is the learner's (the kata command says so: `ended_early`); an end
outside any test is the grading run's own.

The child dies with the parent (PR_SET_PDEATHSIG on Linux), so killing the pytest process a
caller started (a timeout in the kata command) also ends the grading it runs.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

from speckata.grading.parent_death import die_with_parent

GUARDED_PID = "SPECKATA_GUARDED_PID"  # set in the child: a nested pytest in the same process does not fork again
# What the child says, a line each: the test it starts, then that it reached the end, or that it
# was stopped (and already explained itself).
RUNNING, REACHED_END, STOPPED = b"running ", b"end", b"stopped"

_pipe: int | None = None

ENDED_DURING = "speckata: the test run ended before pytest's summary, ended by the code under test in "
_ENDED_PATTERN = re.compile("^" + re.escape(ENDED_DURING) + r"(.+)\n  (.+)$", re.MULTILINE)
CRASH_SIGNALS = {"SIGSEGV": "a segmentation fault", "SIGBUS": "a bus error", "SIGILL": "an illegal instruction",
                 "SIGFPE": "a floating-point exception", "SIGABRT": "an abort"}


def how_it_ended(code: int) -> str:
    """What ended the process, from its exit code (128 + N: killed by signal N, as a shell says)."""
    name = signal.Signals(code - 128).name if 128 < code < 128 + 65 and code - 128 in signal.valid_signals() else ""
    if name in CRASH_SIGNALS:
        return (f"the process crashed ({name}, {CRASH_SIGNALS[name]}): a fault in native code it called "
                "(ctypes, a C extension, memory it should not touch), not a Python exception")
    if name == "SIGKILL":
        return "the process was killed (SIGKILL): out of memory? (the system kills the largest process)"
    if name:
        return f"the process was killed by {name}"
    return (f"the process ended with exit code {code} instead of returning to the grader "
            f"(os._exit({code})? a C library's exit()?)")


def ended_early_message(nodeid: str | None, code: int) -> str:
    if nodeid is None:
        return (f"speckata: the test run ended before pytest's summary, outside any test (exit code {code}). "
                "Nothing after that point was graded, and this run does not count as passed.")
    return (f"{ENDED_DURING}{nodeid}\n  {how_it_ended(code)}.\n"
            "  Nothing after that point was graded, and this run does not count as passed.")


def ended_early(output: str) -> tuple[str, str] | None:
    """(the test, how it ended) when ``output`` holds the guard's message for a run that ended early."""
    found = _ENDED_PATTERN.search(output)
    return (found.group(1), found.group(2).rstrip(".")) if found else None


def progress_file_for(report: Path) -> Path:
    """Where an unguarded run (a warm grader's) writes what it would tell a guard: beside its report."""
    return Path(report).with_suffix(".progress")


def read_said(said: bytes) -> tuple[str | None, bool]:
    """From what a child said: the last test it started, and whether it ended properly."""
    lines = said.split(b"\n")
    running = [line[len(RUNNING):] for line in lines if line.startswith(RUNNING)]
    finished = any(line in (REACHED_END, STOPPED) for line in lines)
    return (running[-1].decode(errors="replace") if running else None), finished


def guard_this_run(xdist_worker: bool = False) -> None:
    """Fork: the child returns and runs the session; the parent waits and exits for both."""
    global _pipe
    if not hasattr(os, "fork") or os.environ.get(GUARDED_PID) == str(os.getpid()):
        return
    if xdist_worker:  # a worker of `pytest -n`: its controller is the guarded run, and a fork here would
        return  # split the worker from the channel it reports on (a pytest it starts is guarded as usual)
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
        said = said[-65536:] + chunk  # only the last test's name matters
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code  # killed by a signal: the shell's convention
    running, finished = read_said(said)
    if not finished:
        os.write(2, f"\n{ended_early_message(running, code)}\n".encode(errors="replace"))
        code = code or 1
    os._exit(code)


def _read(fd: int) -> bytes:
    while True:
        try:
            return os.read(fd, 65536)
        except InterruptedError:
            continue


def tell_parent(message: bytes) -> None:
    """Say REACHED_END (or STOPPED) to the waiting parent; a no-op in an unguarded run."""
    global _pipe
    if _pipe is not None:
        os.write(_pipe, message + b"\n")
        os.close(_pipe)
        _pipe = None


def tell_parent_running(nodeid: str) -> None:
    """Name the test that starts now (a run that ends inside it is explained by it)."""
    if _pipe is not None:
        os.write(_pipe, RUNNING + nodeid.replace("\n", " ").encode(errors="replace") + b"\n")


def run_unguarded_here(progress_file=None) -> None:
    """For a process forked from a warm grader that reads its verdict from the report file alone
    (speckata/cli/warm_grader.py): no guard fork here, and a guard pipe inherited from the process
    it was forked from is dropped unused, so this run's end is never taken for that one's. What the
    run would tell a guard goes to ``progress_file`` instead, which the warm grader reads the same way."""
    global _pipe
    os.environ[GUARDED_PID] = str(os.getpid())
    if _pipe is not None:
        os.close(_pipe)
        _pipe = None
    if progress_file is not None:
        _pipe = os.open(progress_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
