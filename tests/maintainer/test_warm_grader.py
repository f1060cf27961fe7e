"""`kata watch`'s warm grader (speckata/cli/warm_grader.py) gives the verdicts a fresh pytest gives.

Each re-check runs the suite in a child forked from the watching process, or (as `kata watch`
does, ``reuse_collection``) from a server that configured and collected the suite once
(speckata/cli/warm_session.py). Either way it must read the same report as `python -m pytest` for
a solved and a failing sample, grade the file as it is now after a save, and stop an endless loop
at the whole run's timeout, leaving nothing running. The runs have no completion guard's fork (the
verdict comes from the report file alone), so code that ends the process early must still never
read as solved. A suite that imports learner code while being collected is never reused.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import sys

import pytest

from speckata.cli import warm_grader, warm_session
from speckata.cli.runner import SOLVED, verdict_from_run
from speckata.grading.suite_run import run_suite
from speckata.manifest import exercise_by_id, repo_root

SAMPLES = repo_root() / "tests" / "kata_samples"
SUITE = str(repo_root() / exercise_by_id("01-speculative-step").tests)
OPTIONS = ["--test-timeout=60", "-x"]

pytestmark = pytest.mark.skipif(not warm_grader.available(), reason="needs os.fork")


def outcomes(run) -> tuple:
    assert run.report is not None, run.tail()
    return run.returncode, run.report["states"], sorted((t["nodeid"], t["outcome"]) for t in run.report["tests"])


REUSE = [pytest.param(False, id="fresh-collection"), pytest.param(True, id="reused-collection")]


@pytest.fixture(autouse=True)
def no_server_left_running():
    yield
    if warm_grader._collected.get("suite") is not None:
        warm_grader._collected["suite"].close()
    warm_grader._collected.clear()


@pytest.mark.parametrize("reuse", REUSE)
@pytest.mark.parametrize("sample", ["solved", "failing"])
def test_a_warm_run_reads_as_a_fresh_one(sample, reuse):
    warm_grader.warm_up(repo_root() / SUITE)
    warm = warm_grader.run_suite_warm([SUITE], SAMPLES / sample, options=OPTIONS, timeout=120, cwd=repo_root(),
                                      reuse_collection=reuse)
    fresh = run_suite([SUITE], SAMPLES / sample, options=OPTIONS, timeout=120, cwd=repo_root())
    assert outcomes(warm) == outcomes(fresh)


def test_a_reused_collection_grades_the_file_as_saved(tmp_path):
    """The same collected suite, three saves: failing, solved, failing again."""
    warm_grader.warm_up(repo_root() / SUITE)
    learner = tmp_path / "learner"
    learner.mkdir()
    exercise = exercise_by_id("01-speculative-step")
    states = []
    for sample in ("failing", "solved", "failing"):
        shutil.copy(SAMPLES / sample / exercise.file, learner / exercise.file)
        run = warm_grader.run_suite_warm([SUITE], learner, options=OPTIONS, timeout=120, cwd=repo_root(),
                                         reuse_collection=True)
        states.append(verdict_from_run(exercise, run, 120).state)
    assert states == ["failing", SOLVED, "failing"]
    assert warm_grader._collected["suite"] is not None, "the collection was not reused"


def test_a_server_that_died_is_replaced_and_the_save_still_graded():
    warm_grader.warm_up(repo_root() / SUITE)
    exercise = exercise_by_id("01-speculative-step")
    first = warm_grader.run_suite_warm([SUITE], SAMPLES / "solved", options=OPTIONS, timeout=120, cwd=repo_root(),
                                       reuse_collection=True)
    os.kill(warm_grader._collected["suite"].pid, signal.SIGKILL)
    second = warm_grader.run_suite_warm([SUITE], SAMPLES / "solved", options=OPTIONS, timeout=120, cwd=repo_root(),
                                        reuse_collection=True)
    assert [verdict_from_run(exercise, run, 120).state for run in (first, second)] == [SOLVED, SOLVED], second.tail()


@pytest.mark.parametrize("reuse", REUSE)
def test_an_endless_loop_is_stopped_at_the_timeout(reuse):
    run = warm_grader.run_suite_warm([SUITE], SAMPLES / "endless_loop", options=["--test-timeout=600", "-x"],
                                     timeout=3, cwd=repo_root(), reuse_collection=reuse)
    assert run.timed_out and run.seconds < 30


@pytest.mark.parametrize("reuse", REUSE)
@pytest.mark.parametrize("sample", ["exits_early", "crashes"])
def test_code_that_ends_the_process_early_never_reads_as_solved(sample, reuse):
    exercise = exercise_by_id("01-speculative-step")
    warm_grader.warm_up(repo_root() / SUITE)
    run = warm_grader.run_suite_warm([SUITE], SAMPLES / "isolation" / sample, options=OPTIONS, timeout=120,
                                     cwd=repo_root(), reuse_collection=reuse)
    assert verdict_from_run(exercise, run, 120).state != SOLVED, run.tail()
    if sample == "crashes":
        assert run.returncode == 128 + signal.SIGSEGV, run.returncode


def test_a_suite_that_imports_learner_code_while_collected_is_never_reused(tmp_path, monkeypatch):
    """Even when the process it forks from had already loaded that module from elsewhere (the margin
    gates load the reference's modules into this very process)."""
    spec = importlib.util.spec_from_file_location("ex01_speculative_step", repo_root() / "solutions" / "ex01_speculative_step.py")
    preloaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(preloaded)
    monkeypatch.setitem(sys.modules, "ex01_speculative_step", preloaded)
    suite = tmp_path / "test_imports_at_collection.py"
    suite.write_text("from ex01_speculative_step import speculative_step\n\n\ndef test_it_is_there():\n"
                     "    assert callable(speculative_step)\n")
    collected = warm_session.CollectedSuite(["-q", "-p", "no:cacheprovider", str(suite), f"--target={SAMPLES / 'solved'}"],
                                            repo_root(), (SAMPLES / "solved").resolve(), {})
    try:
        assert not collected.usable and "ex01_speculative_step" in collected.why_not, collected.why_not
    finally:
        collected.close()


WARM_UP_EVERY_SUITE = """
import os
import torch
from speckata.cli.warm_grader import warm_up
from speckata.manifest import load_manifest, repo_root
threads = lambda: len(os.listdir(f"/proc/{os.getpid()}/task"))
for exercise in load_manifest():
    before = threads()
    warm_up(repo_root() / exercise.tests)
    if threads() != before:
        print(exercise.id)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through /proc")
def test_warming_up_every_suite_starts_no_thread(tmp_path):
    """The warm grader and the mutant gate's server fork after warm_up: a thread pool started while a
    suite's helper modules were imported (a model built at import time) deadlocks the forked child."""
    import subprocess

    run = subprocess.run([sys.executable, "-c", WARM_UP_EVERY_SUITE], cwd=repo_root(), capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == [], f"these suites' helper modules start threads when imported: {run.stdout.split()}"
