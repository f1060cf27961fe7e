"""Run grading suites in a pytest subprocess and read its report file: the one way the kata
command and the maintainer gates grade a folder.

The verdict comes from the plugin's report file only, never from pytest's console output, so
whatever the learner's code prints cannot confuse it; no report file means the run broke.
The subprocess gets a session of its own, so a timeout ends it and everything it started.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from speckata.manifest import repo_root


@dataclass
class SuiteRun:
    returncode: int | None  # None when the run was stopped at its timeout
    report: dict | None  # the plugin's report file, or None when the run wrote none
    output: str  # stdout and stderr together
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    def tail(self, lines: int = 25) -> str:
        return "\n".join(self.output.strip().splitlines()[-lines:]) or "(no output)"


def pytest_command(selection: list[str], target: Path | str, report: Path, options: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", *selection, f"--target={target}", f"--report-json={report}",
            "-q", "--color=no", "-p", "no:cacheprovider", *options]


_running: set[subprocess.Popen] = set()  # the runs in progress, for stop_all_runs()
_running_lock = threading.Lock()


def memory_limit(memory_mb: int | None):
    """A preexec function giving the run a data-size limit (soft: a worker it starts may lift it for
    itself, and sets its own), or None."""
    if not memory_mb:
        return None

    def limit() -> None:
        import resource

        hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
        resource.setrlimit(resource.RLIMIT_DATA, (memory_mb * 1024 * 1024, hard))

    return limit


def _start(command: list[str], cwd: Path, memory_mb: int | None = None) -> subprocess.Popen:
    kwargs = dict(cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                  text=True, errors="replace", start_new_session=True, preexec_fn=memory_limit(memory_mb))
    try:
        process = subprocess.Popen(command, **kwargs)
    except OSError:  # a spawn that failed under load (seen once: EFAULT from fork_exec); once more
        process = subprocess.Popen(command, **kwargs)
    with _running_lock:
        _running.add(process)
    return process


def stop_all_runs() -> None:
    """Kill every run in progress and all it started (`kata grade` interrupted): their callers
    return at once, each with a run that produced no verdict."""
    with _running_lock:
        for process in _running:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass


def run_suite(selection: list[str], target: Path | str, *, options: list[str] = (), timeout: float = 600,
              cwd: Path | None = None, memory_mb: int | None = None) -> SuiteRun:
    """Grade ``target`` with the tests in ``selection`` (paths or node ids), at most ``timeout`` s, the
    grading process's data at most ``memory_mb`` MB (RLIMIT_DATA) when given."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="speckata-run-") as scratch:
        report_path = Path(scratch) / "report.json"
        process = _start(pytest_command(list(selection), target, report_path, list(options)), cwd or repo_root(),
                         memory_mb)
        try:
            output, _ = process.communicate(timeout=timeout)
            returncode = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            returncode = None
        finally:
            with _running_lock:
                _running.discard(process)
        report = json.loads(report_path.read_text()) if report_path.is_file() else None
    return SuiteRun(returncode, report, output or "", time.monotonic() - started)
