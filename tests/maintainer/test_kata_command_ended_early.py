"""Learner code that ends the grading process, or raises KeyboardInterrupt, is the learner's failure.

`kata check` used to answer "GRADER ERROR ... a problem with the grading run" (exit 4) for all of
them, and for a crash it showed only pytest's internal stack. Now it is FAILING (exit 1) with the
test the run ended in, how it ended, and for a crash the learner's line. The samples are the
isolation samples `exits_early` (os._exit(0)) and `crashes` (SIGSEGV), and
tests/kata_samples/raises_keyboard_interrupt/. `kata watch`'s warm runs explain them the same way.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from speckata.cli import warm_grader
from speckata.cli.runner import FAILING, verdict_from_run
from speckata.grading import completion_guard
from speckata.manifest import exercise_by_id, repo_root

ROOT = repo_root()
SAMPLES = "tests/kata_samples"
EXERCISE = exercise_by_id("01-speculative-step")
FIRST_TEST = "test_worked_example_all_accepted"

ENDED = {
    "isolation/exits_early": ["the process ended with exit code 0 instead of returning to the grader (os._exit(0)?"],
    "isolation/crashes": ["the process crashed (SIGSEGV, a segmentation fault)",
                          "at ex01_speculative_step.py, line 12 in speculative_step"],
}


def kata_check(sample: str, tmp_path) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment["SPECKATA_STATE_DIR"] = str(tmp_path / "state")
    return subprocess.run([sys.executable, "-m", "speckata.cli", "check", "01", f"--target={SAMPLES}/{sample}"],
                          cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("sample", ENDED)
def test_check_says_the_learners_code_ended_the_run(sample, tmp_path):
    run = kata_check(sample, tmp_path)
    shown = f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert run.returncode == 1 and "FAILING  01-speculative-step" in run.stdout, shown
    assert f"your code ended the grading process during {FIRST_TEST}:" in run.stdout, shown
    for phrase in ENDED[sample]:
        assert phrase in run.stdout, shown
    assert "GRADER ERROR" not in run.stdout and "_pytest" not in run.stdout, shown


def test_check_says_nobody_pressed_ctrl_c(tmp_path):
    run = kata_check("raises_keyboard_interrupt", tmp_path)
    shown = f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert run.returncode == 1, shown
    assert f"FAILING  01-speculative-step: Task 1 of 8, {FIRST_TEST}" in run.stdout, shown
    assert "your code raised KeyboardInterrupt, but nobody pressed Ctrl-C" in run.stdout, shown
    assert "ex01_speculative_step.py:9 in speculative_step" in run.stdout, shown


def test_plain_pytest_names_the_test_the_run_ended_in():
    run = subprocess.run([sys.executable, "-m", "pytest", "tests/test_01_speculative_step.py", "-q", "-p",
                          "no:cacheprovider", f"--target={SAMPLES}/isolation/crashes"], cwd=ROOT,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert run.returncode == 128 + signal.SIGSEGV, run.stdout + run.stderr
    assert completion_guard.ended_early(run.stdout + run.stderr) == (
        f"tests/test_01_speculative_step.py::{FIRST_TEST}",
        "the process crashed (SIGSEGV, a segmentation fault): a fault in native code it called (ctypes, a C "
        "extension, memory it should not touch), not a Python exception"), run.stderr


@pytest.mark.parametrize("reuse", [False, True], ids=["child", "collected"])
@pytest.mark.parametrize("sample", ENDED)
def test_watch_runs_explain_it_the_same_way(sample, reuse):
    warm_grader.warm_up(ROOT / "tests/test_01_speculative_step.py")
    run = warm_grader.run_suite_warm(["tests/test_01_speculative_step.py"], ROOT / SAMPLES / sample,
                                     options=["--test-timeout=120", "-x", "--tb=short"], timeout=120, cwd=ROOT,
                                     reuse_collection=reuse)
    verdict = verdict_from_run(EXERCISE, run, 120)
    assert verdict.state == FAILING, run.tail()
    assert f"your code ended the grading process during {FIRST_TEST}:" in verdict.problem, verdict.problem
    assert ENDED[sample][0] in verdict.problem, verdict.problem
