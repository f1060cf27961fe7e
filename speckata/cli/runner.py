"""Grade one exercise by running its pytest suite in a subprocess and reading the JSON report.

The verdict comes from the plugin's ``--report-json`` file only, never from pytest's console
output, so whatever the learner's code prints cannot confuse it. The per-test time limit is the
plugin's ``--test-timeout``; ``subprocess.run(timeout=...)`` guards the whole run as well, for
code that swallows the plugin's alarm (a bare ``except`` inside an endless loop).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from speckata.cli.state import file_hash
from speckata.manifest import Exercise

SOLVED, FAILING, NOT_ATTEMPTED = "solved", "failing", "not attempted"
MISSING, ERROR = "missing", "error"  # no file to grade; the grading run itself broke


@dataclass
class Verdict:
    exercise: Exercise
    state: str
    passed: int = 0
    total: int = 0
    failure: dict | None = None  # the first failed test: {"nodeid", "message"}
    not_attempted: list[dict] = field(default_factory=list)
    problem: str = ""  # why there is no ordinary verdict (missing file, timeout, crash)
    sha256: str | None = None  # of the graded file, as it was when grading started
    seconds: float = 0.0


def pytest_command(workspace, exercise: Exercise, report: Path) -> list[str]:
    return [
        sys.executable, "-m", "pytest", str(workspace.root / exercise.tests),
        f"--target={workspace.target}", f"--report-json={report}",
        f"--test-timeout={workspace.test_timeout:g}",
        "-x",  # the learner needs the first failing case, not all of them
        "-q", "--tb=short", "--color=no", "-p", "no:cacheprovider",
    ]


def grade(workspace, exercise: Exercise) -> Verdict:
    path = workspace.learner_file(exercise)
    if not path.is_file():
        return Verdict(exercise, MISSING, problem=f"{workspace.shown(path)} does not exist")
    sha256 = file_hash(path)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kata-") as scratch:
        report = Path(scratch) / "report.json"
        try:
            run = subprocess.run(
                pytest_command(workspace, exercise, report), cwd=workspace.root, stdin=subprocess.DEVNULL,
                capture_output=True, text=True, errors="replace", timeout=workspace.timeout,
            )
        except subprocess.TimeoutExpired:
            return Verdict(
                exercise, FAILING, sha256=sha256, seconds=time.monotonic() - started,
                problem=(f"grading was stopped after {workspace.timeout:g} s: the code under test did not "
                         "return (an endless loop that catches exceptions? a blocking call?)"),
            )
        seconds = time.monotonic() - started
        if not report.is_file():
            return Verdict(exercise, ERROR, sha256=sha256, seconds=seconds,
                           problem=crash_description(run))
        data = json.loads(report.read_text())
    verdict = verdict_from_report(exercise, data, run)
    verdict.sha256, verdict.seconds = sha256, seconds
    return verdict


def verdict_from_report(exercise: Exercise, data: dict, run: subprocess.CompletedProcess) -> Verdict:
    tests = [t for t in data["tests"] if t["exercise"] == exercise.id]
    state = data["states"].get(exercise.id, "not run")
    verdict = Verdict(
        exercise, state,
        passed=sum(t["outcome"] == "passed" for t in tests),
        total=len(tests),
        failure=next((t for t in tests if t["outcome"] == "failed"), None),
        not_attempted=[t for t in tests if t["outcome"] == NOT_ATTEMPTED],
    )
    if state not in (SOLVED, FAILING, NOT_ATTEMPTED):  # nothing of this exercise ran
        verdict.state, verdict.problem = ERROR, crash_description(run)
    return verdict


def crash_description(run: subprocess.CompletedProcess, lines: int = 25) -> str:
    output = (run.stdout + run.stderr).strip().splitlines()
    tail = "\n".join(output[-lines:]) or "(no output)"
    return f"the grading run (pytest, exit {run.returncode}) produced no verdict; its last lines:\n{tail}"
