"""Grade one exercise for the kata command: its suite in a subprocess, the verdict from the report.

The per-test time limit is the plugin's ``--test-timeout`` (which learner code cannot catch);
``--timeout`` bounds the whole run as well. A run that learner code ended during a test (os._exit,
a crash: the completion guard names the test) is failing; any other run that wrote no report, or
whose report does not show every test of the exercise, is a grader error. Neither is ever a pass.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from speckata.cli.state import file_hash
from speckata.grading.completion_guard import ended_early
from speckata.grading.states import ERROR, FAILED, FAILING, MISSING, NOT_ATTEMPTED, PASSED, SKIPPED, SOLVED
from speckata.grading.suite_run import SuiteRun, run_suite
from speckata.manifest import Exercise

__all__ = ["ERROR", "FAILING", "MISSING", "NOT_ATTEMPTED", "SOLVED", "Verdict", "grade"]


@dataclass
class Verdict:
    exercise: Exercise
    state: str
    passed: int = 0
    total: int = 0  # tests that count: the grader's own skips (a CUDA case without a GPU) do not
    skipped: int = 0
    failure: dict | None = None  # the first failed test: {"nodeid", "message", maybe "detail"}
    not_attempted: list[dict] = field(default_factory=list)
    problem: str = ""  # why there is no ordinary verdict (missing file, timeout, crash)
    sha256: str | None = None  # of the graded file, as it was when grading started
    seconds: float = 0.0


def grade(workspace, exercise: Exercise) -> Verdict:
    path = workspace.learner_file(exercise)
    if not path.is_file():
        return Verdict(exercise, MISSING, problem=f"{workspace.shown(path)} does not exist")
    sha256 = file_hash(path)
    started = time.monotonic()
    run = getattr(workspace, "suite_runner", run_suite)(  # kata watch sets a warm one (cli/warm_grader.py)
        [str(workspace.root / exercise.tests)], workspace.target, cwd=workspace.root, timeout=workspace.timeout,
        options=[f"--test-timeout={workspace.test_timeout:g}", "-x", "--tb=short",  # -x: the first failing case
                 *streams_option(workspace)],
    )
    verdict = verdict_from_run(exercise, run, workspace.timeout)
    verdict.sha256, verdict.seconds = sha256, time.monotonic() - started
    return verdict


def streams_option(workspace) -> list[str]:
    """``--streams=SEED`` when `kata check --streams SEED` asked for a hidden suite (grading/streams.py)."""
    streams = getattr(workspace, "streams", None)
    return [] if streams is None else [f"--streams={streams}"]


def verdict_from_run(exercise: Exercise, run: SuiteRun, timeout: float) -> Verdict:
    if run.timed_out:
        return Verdict(exercise, FAILING, problem=(
            f"grading was stopped after {timeout:g} s: the code under test did not return "
            "(an endless loop that catches exceptions? a blocking call?)"))
    if run.report is None and ended_early(run.output):
        return Verdict(exercise, FAILING, problem=ended_early_description(exercise, run))
    if run.report is None:
        return Verdict(exercise, ERROR, problem=crash_description(run))
    tests = [t for t in run.report["tests"] if t["exercise"] == exercise.id]
    state = run.report["states"].get(exercise.id, "not run")
    verdict = Verdict(
        exercise, state,
        passed=sum(t["outcome"] == PASSED for t in tests),
        total=sum(t["outcome"] != SKIPPED for t in tests),
        skipped=sum(t["outcome"] == SKIPPED for t in tests),
        failure=next((t for t in tests if t["outcome"] == FAILED), None),
        not_attempted=[t for t in tests if t["outcome"] == NOT_ATTEMPTED],
    )
    if state not in (SOLVED, FAILING, NOT_ATTEMPTED):  # nothing of this exercise ran, or not all of it
        verdict.state, verdict.problem = ERROR, crash_description(run)
    return verdict


def ended_early_description(exercise: Exercise, run: SuiteRun) -> str:
    nodeid, how = ended_early(run.output)
    return "\n".join(filter(None, [
        f"your code ended the grading process during {nodeid.split('::', 1)[-1]}:",
        f"  {how}.", crash_line(exercise, run.output),
        f"Nothing after that point was graded, so {exercise.id} is not solved: your function must return its result."]))


def crash_line(exercise: Exercise, output: str) -> str:
    """Where in the learner's file a crash happened, from the stack Python's faulthandler wrote (innermost first)."""
    for path, line, function in re.findall(r'File "([^"\n]+)", line (\d+) in (\S+)', output):
        if path.endswith("/" + exercise.file):
            return f"  at {exercise.file}, line {line} in {function}"
    return ""


def crash_description(run: SuiteRun) -> str:
    return f"the grading run (pytest, exit {run.returncode}) produced no verdict; its last lines:\n{run.tail()}"
