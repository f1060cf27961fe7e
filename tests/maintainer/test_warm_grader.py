"""`kata watch`'s warm grader (speckata/cli/warm_grader.py) gives the verdicts a fresh pytest gives.

Each re-check runs the suite in a child forked from the watching process. It must read the same
report as `python -m pytest` for a solved and a failing sample, and stop an endless loop at the
whole run's timeout, leaving nothing running. The child runs without the completion guard's fork
(the verdict comes from the report file alone), so code that ends the process early must still
never read as solved.
"""

from __future__ import annotations

import pytest

from speckata.cli import warm_grader
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


@pytest.mark.parametrize("sample", ["solved", "failing"])
def test_a_warm_run_reads_as_a_fresh_one(sample):
    warm_grader.warm_up(repo_root() / SUITE)
    warm = warm_grader.run_suite_warm([SUITE], SAMPLES / sample, options=OPTIONS, timeout=120, cwd=repo_root())
    fresh = run_suite([SUITE], SAMPLES / sample, options=OPTIONS, timeout=120, cwd=repo_root())
    assert outcomes(warm) == outcomes(fresh)


def test_an_endless_loop_is_stopped_at_the_timeout():
    run = warm_grader.run_suite_warm([SUITE], SAMPLES / "endless_loop", options=["--test-timeout=600", "-x"],
                                     timeout=3, cwd=repo_root())
    assert run.timed_out and run.seconds < 30


def test_code_that_ends_the_process_early_never_reads_as_solved():
    exercise = exercise_by_id("01-speculative-step")
    warm_grader.warm_up(repo_root() / SUITE)
    run = warm_grader.run_suite_warm([SUITE], SAMPLES / "isolation" / "exits_early", options=OPTIONS, timeout=120,
                                     cwd=repo_root())
    assert verdict_from_run(exercise, run, 120).state != SOLVED, run.tail()
