"""The pytest plugin that turns the suites in tests/ into a grader.

Loaded before the command line is parsed (``addopts = "-p speckata.grading.plugin"``), it adds:

- ``--target PATH``: the folder graded (default ``exercises``; ``solutions`` for the reference).
- "not attempted": a test whose target raises NotImplementedError is not a failure, unless the
  target is the reference (``solutions``), where it is.
- readable failures: a GradingFailure is shown as its message, with no traceback.
- a per-test time limit (``--test-timeout``) on the grading suites' tests, which learner code
  cannot catch; once a test of an exercise was stopped, the rest of that exercise is not run again.
  (The support tests and the maintainer gates run no learner code in-process; the gates bound their
  own subprocesses.)
- a run that ends early (learner code ending the process) never exits 0 (completion_guard.py).
- a summary listing every exercise as solved, failing, not attempted or incomplete.
- ``--maintainer``: also collect tests/maintainer (the mutant, notebook and shape gates) and
  tests/support (the package's own helpers); a learner's plain ``pytest`` grades their exercises only.
- ``--report-json PATH``: every test's outcome and message, for the ``kata`` command and the gates.
- ``--streams SEED``: every generated case drawn afresh from SEED, for a hidden suite (streams.py).
"""

from __future__ import annotations

import copy
import os
import signal
import sys
from pathlib import Path

import pytest

from speckata.grading import completion_guard, ordering, streams
from speckata.grading.bounded_text import cut_message
from speckata.grading.failures import GradingFailure, LearnerStopped
from speckata.grading.learner_code import install_finder
from speckata.grading.learner_lines import learner_line_of_error
from speckata.grading.report import GradingRecord
from speckata.grading.target import is_reference_target, resolve_target, set_target, shown_path, target_dir
from speckata.grading.time_limit import time_limit
from speckata.grading.verdicts import classify_call, words_its_own_message
from speckata.manifest import repo_root

pytest_plugins = ["speckata.grading.isolation.pytest_plugin"]  # --isolate (kata grade)


def pytest_addoption(parser):
    group = parser.getgroup("speckata", "speckata grading")
    group.addoption("--target", default="exercises",
                    help="folder to grade, laid out like exercises/ (default: exercises)")
    group.addoption("--maintainer", action="store_true", help="also run the maintainer gates (tests/maintainer) and the helpers' tests (tests/support)")
    group.addoption("--test-timeout", type=float, default=120.0, help="seconds before a test is stopped (default 120)")
    group.addoption("--report-json", default=None, help="write every test's outcome and message to this file")
    streams.add_option(group)  # --streams SEED: a hidden suite (speckata/grading/streams.py)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    completion_guard.guard_this_run(xdist_worker=hasattr(config, "workerinput"))
    one_thread_each_when_parallel(config)
    target = resolve_target(config.getoption("--target"), Path(config.invocation_params.dir))
    if not target.is_dir():
        raise pytest.UsageError(f"--target {config.getoption('--target')}: no such folder ({target})")
    set_target(target)
    notice_ctrl_c()
    streams.configure(config)
    install_finder()  # from now on an exercise module imports from the graded folder, whoever imports it
    if getattr(config, "args_source", None) == pytest.Config.ArgsSource.INVOCATION_DIR:
        # No test paths given and pytest fell back to the current folder: run from a subfolder, or
        # `--target /abs/path` without `=` made pytest take that path as its rootdir and miss our
        # config. Grade with the repository's suites all the same.
        config.args = [str(repo_root() / "tests")]
    config.pluginmanager.register(GradingSession(config), "speckata-grading-session")
    config.pluginmanager.register(ordering, "speckata-ordering")  # fixed cases first, slow tests last


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item, call):
    """A call phase that raised what the grader words itself: pytest's report without its traceback
    text, which GradingSession's wrapper below replaces anyway (pytest's own hook is then skipped)."""
    if call.when == "call" and call.excinfo is not None and words_its_own_message(call.excinfo.value):
        unformatted = copy.copy(call)
        unformatted.excinfo = "replaced by the grader's message"  # not an exception: pytest takes it as the text
        return pytest.TestReport.from_item_and_call(item, unformatted)
    return None


def one_thread_each_when_parallel(config) -> None:
    """Under `pytest -n N` (N > 1), one OpenMP thread per process, for the workers and every process
    they start (kernels, kata grade's sandboxes). Two processes each running torch's default pool of
    one thread per core spin against each other: a sandboxed grading measured 2.5x slower beside a
    notebook kernel with the default pool, 1.06x with one thread each."""
    workers = config.getoption("numprocesses", None) if config.pluginmanager.hasplugin("xdist") else None
    if workers not in (None, 0, 1, "0", "1"):
        os.environ.setdefault("OMP_NUM_THREADS", "1")


def pytest_unconfigure(config):
    completion_guard.tell_parent(completion_guard.REACHED_END)


_ctrl_c_pressed = False  # a real SIGINT arrived: a KeyboardInterrupt is the person's, not the learner code's


def notice_ctrl_c() -> None:
    """Tell a KeyboardInterrupt from Ctrl-C (SIGINT) from one that learner code raised itself."""
    def on_sigint(signum, frame):
        global _ctrl_c_pressed
        _ctrl_c_pressed = True
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        try:
            signal.signal(signal.SIGINT, on_sigint)
        except ValueError:  # not the main thread: every KeyboardInterrupt stays an interruption
            pass


def raised_by_learner_code(error: KeyboardInterrupt) -> GradingFailure:
    line = learner_line_of_error(error)
    return GradingFailure(
        "your code raised KeyboardInterrupt, but nobody pressed Ctrl-C: the grader needs your function to "
        "return (raising KeyboardInterrupt would end the whole test run, not just this test)"
        + (f"\n  at {line}" if line else ""))


KEPT_OUTPUT = 64 * 1024  # characters (bytes, for a file descriptor) of one test's output kept per stream


class BoundedOutput:
    """sys.stdout or sys.stderr while a graded test runs: the first KEPT_OUTPUT characters go on to
    pytest's capture, the rest is only counted. A solution that prints hundreds of megabytes per call
    then costs neither the memory to hold it nor the time to copy it, and its verdict can name it."""

    def __init__(self, stream):
        self.stream, self.written, self.kept = stream, 0, 0

    def write(self, text) -> int:
        if not isinstance(text, str):
            return self.stream.write(text)  # the stream's own TypeError
        if self.kept < KEPT_OUTPUT:
            part = text[: KEPT_OUTPUT - self.kept]
            self.stream.write(part)
            self.kept += len(part)
        self.written += len(text)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


def cap_descriptor_capture(config) -> int:
    """Output written past sys.stdout (os.write(1, ...), C code) lands in pytest's capture file: cut
    that file to KEPT_OUTPUT bytes before pytest reads it into memory. Returns the bytes cut."""
    capture = config.pluginmanager.getplugin("capturemanager")
    capturing = getattr(capture, "_global_capturing", None)
    cut = 0
    for stream in (getattr(capturing, "out", None), getattr(capturing, "err", None)):
        tmpfile = getattr(stream, "tmpfile", None)
        try:
            tmpfile.flush()
            size = os.fstat(tmpfile.fileno()).st_size
        except (AttributeError, OSError, ValueError):  # sys-level capture (a StringIO), or none
            continue
        if size > KEPT_OUTPUT:
            os.ftruncate(tmpfile.fileno(), KEPT_OUTPUT)
            cut += size - KEPT_OUTPUT
    return cut


def flood_note(printed: int) -> str:
    return (f"\n  note: your code printed {printed / 1e6:,.1f} MB in this test (only the first "
            f"{KEPT_OUTPUT // 1024} KB of each stream were kept): printing that much costs time and memory: "
            "remove the debugging prints")


def maintainer_only_folders() -> tuple[Path, Path]:
    return repo_root() / "tests" / "maintainer", repo_root() / "tests" / "support"


class GradingSession:
    def __init__(self, config):
        self.config = config
        self.record = GradingRecord()
        self.stopped: dict[str, str] = {}  # exercise id -> the test in which its code did not return
        self.bounded: dict[str, tuple] = {}  # test node id -> its BoundedOutput streams, while it runs
        self.printed: dict[str, int] = {}  # test node id -> what it printed when that was cut (0: nothing cut)

    def pytest_collection_finish(self, session):
        self.record.expect(session.items)

    def pytest_report_header(self, config):
        kind = "the reference solutions" if is_reference_target() else "your code"
        return [f"speckata: grading {shown_path(target_dir())}/ ({kind})", *filter(None, [streams.header_line()])]

    def pytest_ignore_collect(self, collection_path, config):
        # A learner's `pytest` grades their exercises only: the maintainer gates and the tests of the
        # package's own helpers (tests/support/) run with --maintainer, or when named on the command line.
        if config.getoption("--maintainer") or collection_path not in maintainer_only_folders():
            return None
        named = [Path(config.invocation_params.dir, arg.split("::")[0]).resolve() for arg in config.args]
        return None if any(path.is_relative_to(collection_path) for path in named) else True

    # trylast: inside pytest's own capture of the call, so that the capture file can be cut before it is read
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_call(self, item):
        exercise = self.record.exercise_of.get(item.nodeid)
        if exercise in self.stopped:
            raise LearnerStopped(
                f"stopped: your code did not return in {self.stopped[exercise]}, so the rest of "
                f"{exercise} was not run"
            )
        if exercise is None:  # a support test or a gate: no learner code to stop (gates bound their subprocesses)
            return (yield)
        streams = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = BoundedOutput(sys.stdout), BoundedOutput(sys.stderr)
        self.bounded[item.nodeid] = (sys.stdout, sys.stderr)
        try:
            with time_limit(self.config.getoption("--test-timeout"), lambda message: self.hard_stop(item, message)):
                try:
                    return (yield)
                except KeyboardInterrupt as error:
                    if _ctrl_c_pressed:
                        raise
                    raise raised_by_learner_code(error) from None
        finally:
            sys.stdout, sys.stderr = streams
            self.printed[item.nodeid] = self.printed_in(item.nodeid) + cap_descriptor_capture(self.config)

    def printed_in(self, nodeid: str) -> int:
        """What the test printed beyond what was kept (0: nothing was cut)."""
        bounded = self.bounded.pop(nodeid, ())
        written = sum(stream.written for stream in bounded)
        return written if any(stream.written > stream.kept for stream in bounded) else 0

    def pytest_runtest_logstart(self, nodeid, location):
        completion_guard.tell_parent_running(nodeid)  # a run that ends inside this test is explained by it

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if call.when == "call" and call.excinfo is not None:
            classify_call(report, call.excinfo.value)
            if isinstance(report.longrepr, str):  # pytest prints it too: bounded before anything shows it
                report.longrepr = cut_message(report.longrepr)
            if self.printed.get(item.nodeid) and report.failed and isinstance(report.longrepr, str):
                report.longrepr += flood_note(self.printed[item.nodeid])
            exercise = self.record.exercise_of.get(item.nodeid)
            if getattr(report, "speckata_kind", "") == "stopped" and exercise and exercise not in self.stopped:
                self.stopped[exercise] = item.name
        return report

    def pytest_report_teststatus(self, report, config):
        if getattr(report, "speckata_kind", "") == "not attempted":
            return "not attempted", "n", "NOT ATTEMPTED"
        return None

    def pytest_runtest_logreport(self, report):
        self.record.add(report)

    def pytest_terminal_summary(self, terminalreporter):
        lines = self.record.summary_lines(self.stopped)
        if lines:
            terminalreporter.section(lines[0])
            for line in lines[1:]:
                terminalreporter.write_line(line)

    def pytest_sessionfinish(self, session, exitstatus):
        # A worker of `pytest -n` (maintainers' speed-up) runs a share of the tests it collected: its
        # record is partial by design, and the controller judges the run from every worker's reports.
        if session.exitstatus == 0 and self.record.any_unfinished() and not hasattr(self.config, "workerinput"):
            session.exitstatus = 1
        self.write_report()

    def write_report(self) -> None:
        path = self.config.getoption("--report-json")
        if path:
            self.record.write(Path(path), target_dir())

    def hard_stop(self, item, message: str) -> None:
        """Learner code swallowed every LearnerStopped: record the verdict, say so, end the process."""
        printed = self.printed_in(item.nodeid)
        message += flood_note(printed) if printed else ""
        self.record.add_stopped(item.nodeid, message)
        self.stopped.setdefault(self.record.exercise_of.get(item.nodeid), item.name)
        self.write_report()
        capture = self.config.pluginmanager.getplugin("capturemanager")
        if capture is not None:
            capture.suspend_global_capture(in_=True)
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"\nSTOPPED {item.nodeid}\n{message}")
            self.pytest_terminal_summary(reporter)
        completion_guard.tell_parent(completion_guard.STOPPED)
        os._exit(1)
