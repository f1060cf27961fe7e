"""The pytest options of isolated grading, required by the grading plugin (its ``pytest_plugins``).

``--isolate``: the learner's code runs in a worker process apart from the grader (this package), in
a bubblewrap sandbox (bubblewrap.py); ``--no-sandbox``: without the sandbox, guarded only by the
worker's own audit hook (sandbox.py), which code calling the C library can get past;
``--worker-memory MB``: the worker's address-space limit; ``--output-json PATH``: what each test
printed (the exercism results' ``output``); ``--sandbox-log PATH``: each sandbox's PID namespace,
for `kata grade`'s check that none outlived the run. `kata grade` passes them.
"""

from __future__ import annotations

import pytest

from speckata.grading.isolation import session
from speckata.grading.isolation.session import DEFAULT_MEMORY_MB
from speckata.grading.target import target_dir


def pytest_addoption(parser):
    group = parser.getgroup("speckata", "speckata grading")
    group.addoption("--isolate", action="store_true",
                    help="run the learner's code in a separate process with time and memory limits (kata grade)")
    group.addoption("--worker-memory", type=int, default=DEFAULT_MEMORY_MB, metavar="MB",
                    help=f"with --isolate: the learner process's memory limit (default {DEFAULT_MEMORY_MB} MB)")
    group.addoption("--no-sandbox", action="store_true",
                    help="with --isolate: no bubblewrap sandbox, only the worker's in-process guard (weaker)")
    group.addoption("--output-json", default=None, metavar="PATH", help="write what each test printed to this file")
    group.addoption("--sandbox-log", default=None, metavar="PATH",
                    help="with --isolate: append each sandbox's PID namespace to this file (kata grade checks it)")


@pytest.hookimpl(trylast=True)  # after the grading plugin chose the graded folder
def pytest_configure(config):
    if config.getoption("--isolate"):
        sandboxed = not config.getoption("--no-sandbox")
        if sandboxed:
            from speckata.grading.isolation.bubblewrap import sandbox_problem

            problem = sandbox_problem()
            if problem:
                raise pytest.UsageError(f"--isolate: {problem}; or pass --no-sandbox to accept the weaker "
                                        "in-process guard")
        if config.getoption("--sandbox-log"):
            import os

            from speckata.grading.isolation.connection import SANDBOX_LOG

            os.environ[SANDBOX_LOG] = config.getoption("--sandbox-log")
        try:
            session.start(target_dir(), config.getoption("--worker-memory"), sandboxed)
        except ValueError as error:  # a folder over the copy's limits (folder_copy.py)
            raise pytest.UsageError(f"--isolate: {error}") from None
    if config.getoption("--output-json"):
        config.pluginmanager.register(CapturedOutput(config.getoption("--output-json")), "speckata-captured-output")


def pytest_report_header(config):
    if config.getoption("--isolate"):
        if config.getoption("--no-sandbox"):
            return "speckata: your code runs in a separate process (--isolate --no-sandbox: in-process guard only)"
        return "speckata: your code runs in a separate process, in a bubblewrap sandbox (--isolate)"
    return None


def pytest_unconfigure(config):
    session.stop()


class CapturedOutput:
    """``--output-json PATH``: what each test printed (stdout and stderr), for `kata grade`'s results."""

    def __init__(self, path: str):
        self.path, self.outputs = path, {}

    def pytest_runtest_logreport(self, report):
        text = "".join(content for _, content in report.sections if _.startswith("Captured std"))
        if text:  # each phase's report holds the sections of the phases before it: keep the last
            self.outputs[report.nodeid] = text

    def pytest_sessionfinish(self, session):
        import json
        from pathlib import Path

        Path(self.path).write_text(json.dumps(self.outputs))


