"""The pytest plugin that turns the suites in tests/ into a grader.

Loaded before the command line is parsed (``addopts = "-p speckata.pytest_plugin"``), it adds:

- ``--target PATH``: the folder graded (default ``exercises``; ``solutions`` for the reference).
- "not attempted": a test whose target raises NotImplementedError is not a failure, unless the
  target is the reference (``solutions``), where it is.
- readable failures: a GradingFailure is shown as its message, with no traceback.
- a per-test time limit (``--test-timeout``), so code that never returns is stopped.
- a summary listing every exercise as solved, failing or not attempted.
- ``--maintainer``: also collect tests/maintainer (the mutant, notebook and shape gates).
- ``--report-json PATH``: every test's outcome and message, for the ``kata`` command and the gates.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from speckata.grading.failures import GradingFailure
from speckata.grading.target import set_target, shown_path, target_dir
from speckata.manifest import exercise_for_test_file, load_manifest, repo_root

NOT_ATTEMPTED = "not attempted"
SOLVED, FAILING, NOT_RUN = "solved", "failing", "not run"


def pytest_addoption(parser):
    group = parser.getgroup("speckata", "speckata grading")
    group.addoption("--target", default="exercises", help="folder to grade, laid out like exercises/ (default: exercises)")
    group.addoption("--maintainer", action="store_true", help="also run the maintainer gates in tests/maintainer")
    group.addoption("--test-timeout", type=float, default=120.0, help="seconds before a test is stopped (default 120)")
    group.addoption("--report-json", default=None, help="write every test's outcome and message to this file")


def resolve_target(value: str, invocation_dir: Path) -> Path:
    path = Path(value).expanduser()
    if path.is_absolute():
        return path
    for base in (invocation_dir, repo_root()):
        if (base / path).is_dir():
            return (base / path).resolve()
    return (invocation_dir / path).resolve()


def pytest_configure(config):
    target = resolve_target(config.getoption("--target"), Path(config.invocation_params.dir))
    if not target.is_dir():
        raise pytest.UsageError(f"--target {config.getoption('--target')}: no such folder ({target})")
    set_target(target)
    if getattr(config, "args_source", None) == pytest.Config.ArgsSource.INVOCATION_DIR:
        # No test paths given and pytest fell back to the current folder: run from a subfolder, or
        # `--target /abs/path` without `=` made pytest take that path as its rootdir and miss our
        # config. Grade with the repository's suites all the same.
        config.args = [str(repo_root() / "tests")]
    config.pluginmanager.register(GradingSession(config), "speckata-grading-session")


def where_stuck(frame) -> str:
    """The innermost line of the graded folder's code that was running when the time ran out."""
    import linecache

    folder = target_dir()
    while frame is not None:
        path = Path(frame.f_code.co_filename).resolve()
        if folder in path.parents:
            line = linecache.getline(str(path), frame.f_lineno).strip()
            return f"\n  it was at {shown_path(path)}:{frame.f_lineno} in {frame.f_code.co_name}:  {line}"
        frame = frame.f_back
    return ""


def is_reference_target() -> bool:
    return target_dir() == (repo_root() / "solutions").resolve()


class GradingSession:
    def __init__(self, config):
        self.config = config
        self.outcomes: dict[str, dict[str, str]] = {}  # exercise id -> test id -> outcome
        self.records: list[dict] = []
        self.exercise_of: dict[str, str] = {}  # test node id -> exercise id

    def pytest_collection_modifyitems(self, items):
        for item in items:
            exercise = exercise_for_test_file(item.path)
            if exercise:
                self.exercise_of[item.nodeid] = exercise.id

    def pytest_report_header(self, config):
        kind = "the reference solutions" if is_reference_target() else "your code"
        return f"speckata: grading {shown_path(target_dir())}/ ({kind})"

    def pytest_ignore_collect(self, collection_path, config):
        maintainer_dir = repo_root() / "tests" / "maintainer"
        if not config.getoption("--maintainer") and collection_path == maintainer_dir:
            return True
        return None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        seconds = self.config.getoption("--test-timeout")
        usable = seconds and seconds > 0 and hasattr(signal, "SIGALRM")
        if usable:
            def stop(signum, frame):
                raise GradingFailure(
                    f"stopped after {seconds:g} s: the code under test did not return "
                    f"(an endless loop? a loop whose index never advances?){where_stuck(frame)}"
                )

            previous = signal.signal(signal.SIGALRM, stop)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            if usable:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = (yield).get_result()
        if call.excinfo is None or call.when != "call":
            return
        error = call.excinfo.value
        if isinstance(error, NotImplementedError):
            if is_reference_target():
                report.longrepr = f"the reference raised NotImplementedError: {error}"
            else:
                report.outcome = "skipped"
                report.longrepr = (str(item.path), item.location[1] or 0, f"{NOT_ATTEMPTED}: {error}")
                report.speckata_not_attempted = True
        elif isinstance(error, GradingFailure):
            report.longrepr = str(error)

    def pytest_report_teststatus(self, report, config):
        if getattr(report, "speckata_not_attempted", False):
            return NOT_ATTEMPTED, "n", "NOT ATTEMPTED"
        return None

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and not report.passed):
            outcome = NOT_ATTEMPTED if getattr(report, "speckata_not_attempted", False) else report.outcome
            exercise_id = self.exercise_of.get(report.nodeid)
            if exercise_id:
                self.outcomes.setdefault(exercise_id, {})[report.nodeid] = outcome
            message = "" if report.passed else str(report.longrepr if not isinstance(report.longrepr, tuple) else report.longrepr[2])
            self.records.append({"nodeid": report.nodeid, "exercise": exercise_id, "outcome": outcome, "message": message})

    def exercise_states(self) -> dict[str, str]:
        states = {}
        for exercise in load_manifest():
            # A skipped test (say, a CUDA case on a machine without a GPU) says nothing either way.
            outcomes = [o for o in self.outcomes.get(exercise.id, {}).values() if o != "skipped"]
            if not outcomes:
                states[exercise.id] = NOT_RUN
            elif all(o == NOT_ATTEMPTED for o in outcomes):
                states[exercise.id] = NOT_ATTEMPTED
            elif all(o == "passed" for o in outcomes):
                states[exercise.id] = SOLVED
            else:
                states[exercise.id] = FAILING
        return states

    def pytest_terminal_summary(self, terminalreporter):
        states = self.exercise_states()
        graded = {k: v for k, v in states.items() if v != NOT_RUN}
        if not graded:
            return
        solved = sum(1 for v in graded.values() if v == SOLVED)
        terminalreporter.section(f"speckata: {solved} of {len(graded)} exercises solved ({shown_path(target_dir())}/)")
        for exercise in load_manifest():
            state = states[exercise.id]
            if state == NOT_RUN:
                continue
            counts = list(self.outcomes[exercise.id].values())
            skipped = counts.count("skipped")
            detail = f"{counts.count('passed')}/{len(counts) - skipped} tests pass"
            detail += f" ({skipped} skipped here)" if skipped else ""
            terminalreporter.write_line(f"  {state:<14} {exercise.id:<32} {detail}")
        partial = [k for k, v in graded.items() if v == FAILING and NOT_ATTEMPTED in self.outcomes[k].values()]
        for exercise_id in partial:
            terminalreporter.write_line(
                f"  note: {exercise_id} is partly written: some tests still raise NotImplementedError"
            )

    def pytest_sessionfinish(self, session, exitstatus):
        states = self.exercise_states()
        # A partly written exercise (some tests pass, some still raise NotImplementedError) is failing.
        partial = any(
            state == FAILING and NOT_ATTEMPTED in self.outcomes[exercise_id].values()
            and all(o in ("passed", "skipped", NOT_ATTEMPTED) for o in self.outcomes[exercise_id].values())
            for exercise_id, state in states.items()
        )
        if partial and session.exitstatus == 0:
            session.exitstatus = 1
        path = self.config.getoption("--report-json")
        if path:
            Path(path).write_text(
                json.dumps({"target": str(target_dir()), "states": states, "tests": self.records}, indent=1)
            )
