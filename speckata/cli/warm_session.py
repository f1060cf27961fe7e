"""One suite configured and collected once, run afresh for every save: the warm grader's fast path.

`kata watch` grades the same suite again and again against new versions of one learner file.
What pytest does before the first test (parse the options and pyproject's settings, register the
plugins, import and rewrite the test module, collect and order its tests) does not depend on the
learner's code: the suites load it inside a test, never at import (learner_function). So a
**collected suite** does that work once, in a server process forked from the watch, and every
re-check forks a run from that server: the run executes the collected tests, writes its report
and exits. The server's own session is never run, so every run starts from the same state, and
the watching process is never touched (no pytest configuration lives in it).

It is used only where that is safe:

- before collecting, the server drops every exercise module the watch had loaded; after, it looks
  for exercise modules and modules of the graded folder in ``sys.modules``: if a suite imported
  learner code while being collected, the server says so and the caller grades each save the
  ordinary way (a child that collects for itself);
- the test files are fingerprinted (modification time and size); a change starts a new server;
- torch runs on one thread while collecting, so no OpenMP thread pool exists in the server when
  runs are forked from it;
- output capture is ``sys`` (pytest's default, ``fd``, would keep duplicates of the server's
  file descriptors, so a run's output could escape its output file).

A run is a session leader: the caller ends it, and whatever it started, at the timeout. The
server dies with the watch (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import faulthandler
import json
import os
import select
import signal
import sys
from pathlib import Path

from speckata.grading import completion_guard, learner_code
from speckata.grading.parent_death import die_with_parent
from speckata.manifest import load_manifest

EXTRA_ARGUMENTS = ["--capture=sys"]  # see the module's docstring


def fingerprint(paths: list[Path]) -> tuple:
    """(path, mtime, size) of every file: a changed test file means a new collection."""
    stamps = []
    for path in paths:
        try:
            status = path.stat()
        except OSError:
            stamps.append((str(path), None, None))
        else:
            stamps.append((str(path), status.st_mtime_ns, status.st_size))
    return tuple(stamps)


class CollectedSuite:
    """A server holding one configured, collected pytest session; ``run`` grades one save."""

    def __init__(self, arguments: list[str], cwd: Path, target: Path, environment: dict[str, str]):
        request_read, self._requests = os.pipe()
        self._replies, reply_write = os.pipe()
        parent = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(self._requests)
            os.close(self._replies)
            os.environ.update(environment)
            _serve(parent, arguments + EXTRA_ARGUMENTS, cwd, target, request_read, reply_write)
        os.close(request_read)
        os.close(reply_write)
        self.pid = pid
        self._buffer = b""
        reply = self._reply(timeout=120)
        self.usable = reply == "ready"
        self.why_not = "" if self.usable else (reply or "the server did not answer")
        if not self.usable:
            self.close()

    def run(self, report_path: Path, output_path: Path, timeout: float) -> int | None:
        """The run's exit code, or None when it ran past ``timeout`` (it and its session are killed).
        ServerGone when the server cannot start a run (the caller grades the ordinary way)."""
        request = {"report": str(report_path), "output": str(output_path)}
        try:
            os.write(self._requests, (json.dumps(request) + "\n").encode())
        except OSError as error:
            raise ServerGone(str(error)) from None
        started = self._reply(timeout=30)
        if not started or not started.startswith("started "):
            raise ServerGone(started or "no answer")
        child = int(started.split()[1])
        try:
            ended = self._reply(timeout=timeout)
        except BaseException:  # Ctrl-C in the watch: leave nothing running
            _kill_group(child)
            raise
        if ended is None:
            _kill_group(child)
            self._reply(timeout=30)
            return None
        if not ended.startswith("exit "):
            return 4
        code = int(ended.split()[1])
        return 128 - code if code < 0 else code  # killed by signal N: 128 + N, as a shell and warm_grader._wait say

    def close(self) -> None:
        for fd in (self._requests, self._replies):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def _reply(self, timeout: float) -> str | None:
        """The server's next line, or None at the timeout (or when it is gone)."""
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([self._replies], [], [], timeout)
            if not ready:
                return None
            chunk = os.read(self._replies, 4096)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()


class ServerGone(Exception):
    """The collected suite's server could not start a run."""


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# The server ----------------------------------------------------------------------------------------

_server_pipes: tuple[int, ...] = ()  # closed in every run, so that only the server holds them


def _serve(parent: int, arguments: list[str], cwd: Path, target: Path, requests: int, replies: int) -> None:
    global _server_pipes
    code = 0
    _server_pipes = (requests, replies)
    try:
        die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the watch is for the watch
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(quiet, fd)
        os.chdir(cwd)
        why_not = _collect(arguments, target)
        os.write(replies, (why_not or "ready").encode() + b"\n")
        if why_not:
            return
        for line in os.fdopen(requests, "rb"):
            request = json.loads(line)
            child = os.fork()
            if child == 0:
                _run_collected(request)
            os.write(replies, f"started {child}\n".encode())
            _, status = os.waitpid(child, 0)
            os.write(replies, f"exit {os.waitstatus_to_exitcode(status)}\n".encode())
    except BaseException as error:  # noqa: BLE001 - the server must never return into the watch's code
        code = 4
        try:
            os.write(replies, f"broken: {type(error).__name__}: {error}\n".encode())
        except OSError:
            pass
    finally:
        os._exit(code)


_config = None
_session = None


def _collect(arguments: list[str], target: Path) -> str:
    """Configure pytest and collect, as ``pytest.main`` would up to its first test; '' when usable."""
    global _config, _session
    import pytest
    from _pytest.config import _prepareconfig
    from _pytest.main import ExitCode, Session

    os.environ["PYTEST_VERSION"] = pytest.__version__  # as pytest.main sets it
    completion_guard.run_unguarded_here()  # the runs read their verdict from the report file
    exercise_modules = {exercise.module for exercise in load_manifest()}
    for name in exercise_modules:  # whatever the forking process had loaded: every run loads its own
        sys.modules.pop(name, None)
    learner_code.forget_every_module()
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(1)  # no OpenMP pool may exist in a process that forks the runs
    try:
        config = _prepareconfig(list(arguments), None)
        session = Session.from_config(config)
        session.exitstatus = ExitCode.OK
        config._do_configure()
        config.hook.pytest_sessionstart(session=session)
        config.hook.pytest_collection(session=session)
        for item in session.items:  # a cached property every run would otherwise compute again
            _ = item.location
    finally:
        if torch is not None:
            torch.set_num_threads(threads)
    graded = str(target)
    learner = sorted(name for name, module in list(sys.modules.items())
                     if name in exercise_modules or str(getattr(module, "__file__", "") or "").startswith(graded + os.sep))
    if learner or learner_code.loaded_modules():
        return f"unusable: collecting imported learner code ({', '.join(learner or learner_code.loaded_modules())})"
    _config, _session = config, session
    return ""


def _run_collected(request: dict) -> None:
    """In a run forked from the server: the collected tests, the report, the exit code. Never returns."""
    def body() -> int:
        die_with_parent(os.getppid())  # the server: a run never outlives it
        os.setsid()
        for fd in _server_pipes:
            os.close(fd)
        send_output_to(Path(request["output"]))
        faulthandler.enable(file=sys.stderr, all_threads=True)  # a crash is written where the run's output goes
        completion_guard.run_unguarded_here(completion_guard.progress_file_for(Path(request["report"])))
        return _run_tests(request["report"])

    exit_after(body)


def _run_tests(report: str) -> int:
    from _pytest import timing
    from _pytest._code import ExceptionInfo
    from _pytest.main import ExitCode, Failed
    from _pytest.outcomes import Exit

    config, session = _config, _session
    config.option.report_json = report
    reporter = config.pluginmanager.getplugin("terminalreporter")
    if reporter is not None and hasattr(reporter, "_session_start"):
        reporter._session_start = timing.Instant()  # "N passed in X s" counts this run only
    try:
        config.hook.pytest_runtestloop(session=session)
        if session.testsfailed:
            session.exitstatus = ExitCode.TESTS_FAILED
        elif session.testscollected == 0:
            session.exitstatus = ExitCode.NO_TESTS_COLLECTED
    except Failed:
        session.exitstatus = ExitCode.TESTS_FAILED
    except (KeyboardInterrupt, Exit) as stop:
        config.hook.pytest_keyboard_interrupt(excinfo=ExceptionInfo.from_current())
        session.exitstatus = getattr(stop, "returncode", None) or ExitCode.INTERRUPTED
    config.hook.pytest_sessionfinish(session=session, exitstatus=session.exitstatus)
    config._ensure_unconfigure()
    return int(session.exitstatus)


# Shared with the ordinary warm run (warm_grader._run_in_child) ------------------------------------

def send_output_to(path: Path) -> None:
    """This process's standard output and error to ``path``, no input, Ctrl-C back to its default."""
    output = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def exit_after(body) -> None:
    """Run ``body`` and end this forked process with its exit code (4 if it raised); never returns,
    whatever ``body`` does, so that a child never continues in its parent's code."""
    code = 4
    try:
        code = body()
    except BaseException as error:  # noqa: BLE001
        print(f"speckata: the warm grading run broke: {type(error).__name__}: {error}", file=sys.stderr)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
