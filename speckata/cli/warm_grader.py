"""A warm grader for `kata watch`: re-checks without paying the interpreter's and torch's start-up again.

`kata check` grades in a fresh `python -m pytest` process, which spends most of a short check
importing pytest, numpy and (for the torch and end-to-end exercises) torch. `kata watch` instead
imports them once, here, and grades each saved version in a child forked from this process: the
child inherits the loaded modules, runs pytest in-process, writes the same report file and exits,
so nothing the learner's code did survives into the next check. The child gets a session of its
own, so a timeout (or Ctrl-C in the watch) ends it and everything it started.

Learner code and the suites are never imported here: each child imports them afresh (pytest's
assertion rewriting included), so a saved change is always graded.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from speckata.cli import warm_session
from speckata.grading import completion_guard
from speckata.grading.suite_run import SuiteRun, pytest_command, run_suite

POLL_SECONDS = 0.01  # how often the watch looks whether the child has finished

# What the child leaves out, to cost little more than the suite's own test calls: pytest's scan of
# every installed package for plugins (the grading plugin comes by -p from pyproject's addopts, and
# nothing else installed is needed), and the completion guard's second fork (the watch reads the
# verdict from the report file, which must list every test of the exercise, so a child that ends
# early never reads as solved).
_QUIET_CHILD_ENVIRONMENT = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def available() -> bool:
    return hasattr(os, "fork")


def warm_up(suite: Path) -> None:
    """Import what every run of ``suite`` needs before any learner code: pytest, numpy, the grading
    plugin, torch when the suite uses it, and the suite's helper modules (its references, reports
    and case generators; never a test module, which pytest must import and rewrite itself). No
    torch operation runs here, so no thread pool is started and forking afterwards is safe."""
    import numpy  # noqa: F401
    import pytest  # noqa: F401

    import speckata.grading.plugin  # noqa: F401

    root = str(suite.parent.parent)
    if root not in sys.path:  # where the suite's own imports (tests.reference...) are found
        sys.path.append(root)
    for module in pytest_builtin_plugins() + helper_modules(suite) + given_modules_of_the_exercise(suite):
        importlib.import_module(module)


def pytest_builtin_plugins() -> list[str]:
    """pytest's own plugin modules (and what they import, pdb and xml among them): each run loads them."""
    from _pytest.config import default_plugins

    return [f"_pytest.{name}" for name in default_plugins if importlib.util.find_spec(f"_pytest.{name}")]


def given_modules_of_the_exercise(suite: Path) -> list[str]:
    """The given helpers (speckata, numpy, torch) that the exercise's stub imports: the learner's file
    will import them too. Only the stub is read, never the learner's file."""
    from speckata.manifest import load_manifest

    for exercise in load_manifest():
        if Path(exercise.tests).name == suite.name:
            stub = suite.parent.parent / "exercises" / exercise.file
            return helper_modules(stub) + ["numpy.random"] if stub.is_file() else ["numpy.random"]
    return ["numpy.random"]


def helper_modules(suite: Path) -> list[str]:
    """The modules ``suite`` imports: torch, numpy, speckata's and tests/'s helpers (not test files)."""
    tree = ast.parse(suite.read_text(encoding="utf-8"))
    names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    names += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    wanted = ("torch", "numpy", "speckata", "tests")
    return [name for name in names if name.split(".")[0] in wanted and not name.split(".")[-1].startswith("test_")]


def run_suite_warm(selection: list[str], target: Path | str, *, options: list[str] = (), timeout: float = 600,
                   cwd: Path | None = None, reuse_collection: bool = False) -> SuiteRun:
    """Like speckata.grading.suite_run.run_suite, in a child forked from this warm process. With
    ``reuse_collection`` (`kata watch`), the suite is configured and collected once and each run is
    forked from that collection (speckata/cli/warm_session.py), where that is safe."""
    if not available() or cwd is None:
        return run_suite(selection, target, options=options, timeout=timeout, cwd=cwd)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="speckata-warm-") as scratch:
        report_path, output_path = Path(scratch) / "report.json", Path(scratch) / "output.txt"
        arguments = pytest_command(list(selection), target, report_path, list(options))[3:]  # after `python -m pytest`
        arguments += ["-W", "ignore::pytest.PytestAssertRewriteWarning"]  # the plugin is imported here already
        ran, returncode = False, None
        collected = _collected_suite(selection, target, arguments, cwd) if reuse_collection else None
        if collected is not None:
            try:
                returncode, ran = collected.run(report_path, output_path, timeout), True
            except warm_session.ServerGone:  # graded the ordinary way below; the next save starts a new server
                collected.close()
                _collected.clear()
        if not ran:
            sys.stdout.flush()
            sys.stderr.flush()
            child = os.fork()
            if child == 0:
                _run_in_child(arguments, cwd, output_path, report_path)
            returncode = _wait(child, timeout)
        report = json.loads(report_path.read_text()) if report_path.is_file() else None
        output = output_path.read_text(errors="replace") if output_path.is_file() else ""
        if report is None and returncode is not None:  # explained as the completion guard explains it
            progress = completion_guard.progress_file_for(report_path)
            running, finished = completion_guard.read_said(progress.read_bytes() if progress.is_file() else b"")
            if not finished:
                output += f"\n{completion_guard.ended_early_message(running, returncode)}\n"
                returncode = returncode or 1
    return SuiteRun(returncode, report, output, time.monotonic() - started)


_collected: dict = {}  # the one collected suite kept: {"key", "stamp", "suite" (None when unusable)}


def _collected_suite(selection: list[str], target: Path | str, arguments: list[str], cwd: Path):
    """The collected suite for these arguments (a new one when they or a test file changed), or None
    where a collection cannot be reused."""
    key = (tuple(selection), str(target), tuple(a for a in arguments if not a.startswith("--report-json=")), str(cwd))
    stamp = warm_session.fingerprint([Path(cwd, item.split("::")[0]) for item in selection])
    if _collected.get("key") == key and _collected.get("stamp") == stamp:
        return _collected["suite"]
    if _collected.get("suite") is not None:
        _collected["suite"].close()
    suite = warm_session.CollectedSuite(arguments, Path(cwd), Path(cwd, target).resolve(), _QUIET_CHILD_ENVIRONMENT)
    _collected.update(key=key, stamp=stamp, suite=suite if suite.usable else None)
    return _collected["suite"]


def _run_in_child(arguments: list[str], cwd: Path, output_path: Path, report_path: Path) -> None:
    def body() -> int:
        import pytest

        os.setsid()
        warm_session.send_output_to(output_path)
        os.chdir(cwd)
        os.environ.update(_QUIET_CHILD_ENVIRONMENT)
        completion_guard.run_unguarded_here(completion_guard.progress_file_for(report_path))  # see above
        return int(pytest.main(arguments))

    warm_session.exit_after(body)


def _wait(child: int, timeout: float) -> int | None:
    """The child's exit code, or None when it ran past ``timeout`` (it and its session are killed)."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            pid, status = os.waitpid(child, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                return 128 - code if code < 0 else code
            if time.monotonic() > deadline:
                _kill(child)
                return None
            time.sleep(POLL_SECONDS)
    except BaseException:  # Ctrl-C in the watch: leave nothing running
        _kill(child)
        raise


def _kill(child: int) -> None:
    try:
        os.killpg(child, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(child, 0)
    except ChildProcessError:
        pass
