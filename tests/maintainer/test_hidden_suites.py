"""Hidden suites (`--streams SEED`, speckata/grading/streams.py): the same suites with every generated
case drawn afresh, so code tuned to the visible cases fails them.

- Without the option the suites draw exactly the committed cases (the base seeds themselves).
- The sample tests/kata_samples/hardcoded_cases/ looks up every call the default 03-speedup suite
  makes (a table written by tests/kata_samples/hardcoded_cases_table.py) and answers anything else
  wrongly: it is solved by the default suite and failing under fresh streams, with pytest and kata.
- The reference passes the re-seeded tests (those marked `generated`) of every exercise under two
  fresh seeds here. Twenty, by hand (about 20 s a seed):
  for s in $(seq 1 20); do pytest --target solutions tests/test_*.py -m generated -q --streams $((s * 7919 + 11)); done
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from speckata.grading import streams
from speckata.grading.states import SOLVED
from speckata.grading.suite_run import run_suite
from speckata.manifest import repo_root
from tests.shared.cases import case_rng

ROOT = repo_root()
SAMPLE = "tests/kata_samples/hardcoded_cases"
SUITE = "tests/test_03_speedup.py"
EXERCISE = "03-speedup"
SEEDS = (31337, 2026)  # any two: the reference must pass under every seed


@pytest.fixture
def fresh_streams():
    yield streams.set_streams
    streams.set_streams(None)


def test_without_the_option_every_case_is_the_committed_one(fresh_streams):
    assert streams.streams_seed() is None
    assert [streams.case_seed(base) for base in (0, 7, 1002)] == [0, 7, 1002]
    assert np.array_equal(case_rng(1002).random(5), np.random.default_rng(1002).random(5))
    fresh_streams(1234)
    derived = [streams.case_seed(base) for base in (0, 7, 1002, 1003)]
    assert len(set(derived)) == 4 and not set(derived) & {0, 7, 1002, 1003}
    assert all(0 <= seed < 2**31 for seed in derived)
    assert derived == [streams.derived_seed(1234, base) for base in (0, 7, 1002, 1003)]  # the same every run
    fresh_streams(1235)
    assert streams.case_seed(1002) != derived[2]


def grade(target: str, *options: str, selection=(SUITE,)):
    return run_suite(list(selection), target, options=list(options), timeout=600, cwd=ROOT)


def test_hardcoded_sample_passes_the_visible_suite_and_fails_a_hidden_one():
    visible = grade(SAMPLE)
    assert visible.report is not None, visible.tail()
    assert visible.report["streams"] is None
    assert visible.report["states"][EXERCISE] == SOLVED, visible.tail()
    for seed in SEEDS:
        hidden = grade(SAMPLE, f"--streams={seed}")
        assert hidden.report is not None, hidden.tail()
        assert hidden.report["streams"] == seed
        failed = {t["nodeid"].split("::")[1] for t in hidden.report["tests"] if t["outcome"] == "failed"}
        assert failed == {"test_generated_cases_match_the_exact_values",
                          "test_optimal_gamma_matches_the_exact_optimum_on_generated_cases"}, hidden.tail()
        assert "generated case" in next(t["message"] for t in hidden.report["tests"] if t["outcome"] == "failed")


def kata(*args: str, state_dir) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment["SPECKATA_STATE_DIR"] = str(state_dir)
    return subprocess.run([sys.executable, "-m", "speckata.cli", *args], cwd=ROOT, env=environment,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False)


def test_kata_check_grades_a_hidden_suite(tmp_path):
    visible = kata("check", EXERCISE, f"--target={SAMPLE}", state_dir=tmp_path)
    assert visible.returncode == 0 and "SOLVED" in visible.stdout and "fresh streams" not in visible.stdout, visible.stdout
    hidden = kata("check", EXERCISE, f"--target={SAMPLE}", f"--streams={SEEDS[0]}", state_dir=tmp_path)
    assert hidden.returncode == 1, hidden.stdout + hidden.stderr
    assert f"fresh streams from seed {SEEDS[0]}" in hidden.stdout and "FAILING" in hidden.stdout
    assert "generated case" in hidden.stdout and "Traceback" not in hidden.stdout


def test_the_pytest_header_names_the_streams():
    run = subprocess.run([sys.executable, "-m", "pytest", "--co", SUITE, "--target=solutions", "--streams=5",
                          "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert "speckata: fresh streams from seed 5" in run.stdout, run.stdout[-2000:]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_reference_passes_fresh_streams(seed):
    """Every re-seeded test (marked `generated`) of every exercise, graded on the reference."""
    run = grade("solutions", f"--streams={seed}", "-m", "generated", selection=("tests",))
    assert run.report is not None, run.tail()
    outcomes = [t["outcome"] for t in run.report["tests"]]
    assert outcomes.count("passed") > 100 and set(outcomes) <= {"passed", "skipped"}, run.tail()  # skipped: CUDA
    assert all(state == SOLVED for state in run.report["states"].values() if state != "not run"), run.report["states"]
