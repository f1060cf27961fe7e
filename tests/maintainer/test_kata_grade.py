"""`kata grade`: learner code runs isolated, and no way of cheating or ending the process is a pass.

The sample folders in tests/kata_samples/isolation/ each hold one version of exercise 01. Graded
in-process, `imports_solutions` and `patches_the_report` were both graded solved; here every one of
them but the honest solution must come out failing, with a message that says what happened, and
the results must follow the exercism interface (version 3). Limits are generous (no dependence on
the machine's speed), except the endless loop's own run, whose 2 s limit is what it tests.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from speckata.cli.grade import output_names
from speckata.manifest import repo_root

ROOT = repo_root()
SAMPLES = ROOT / "tests" / "kata_samples" / "isolation"
EXERCISE = "01-speculative-step"

# sample -> a phrase of the first failure's message (what the grader saw)
CHEATS = {
    "imports_solutions": "does not let your code open",
    "reads_the_reference": "does not let your code open",
    "patches_the_report": "got the worked example (all accepted) wrong",
    "exits_early": "ended with exit code 0",
    "calls_sys_exit": "your code called sys.exit(0)",
    "crashes": "SIGSEGV",
    "memory_hog": "MemoryError",
}


def kata_grade(folders: list[Path], out: Path, *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "speckata.cli", "grade", *map(str, folders), "--out", str(out),
               "--exercise", EXERCISE, "--jobs", "2", "--memory", "2048", *options]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("class")
    untouched, empty = base / "a" / "exercises", base / "b" / "exercises"
    untouched.mkdir(parents=True)
    empty.mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "ex01_speculative_step.py", untouched)
    out = base / "out"
    folders = [SAMPLES / "honest_solved", *(SAMPLES / name for name in CHEATS), untouched, empty]
    run = kata_grade(folders, out, "--test-timeout", "600")
    loop = kata_grade([SAMPLES / "endless_loop"], base / "loop", "--test-timeout", "2")
    return out, run, base / "loop", loop


def first_failure(results: dict) -> str:
    return next(t["message"] for t in results["tests"] if t["status"] != "pass")


def states(out: Path) -> dict[str, str]:
    with open(out / "summary.csv", newline="") as file:
        return {row["learner"]: row[EXERCISE] for row in csv.DictReader(file)}


def test_the_honest_solution_passes_in_isolation(graded):
    out, run, _, _ = graded
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((out / "honest_solved" / "results.json").read_text())
    assert results["status"] == "pass" and results["tests"], results
    assert states(out)["honest_solved"] == "solved"


@pytest.mark.parametrize("sample", list(CHEATS))
def test_a_cheat_or_an_early_end_is_never_a_pass(graded, sample):
    out, _, _, _ = graded
    results = json.loads((out / sample / EXERCISE / "results.json").read_text())
    assert results["status"] != "pass" and states(out)[sample] != "solved"
    assert CHEATS[sample] in first_failure(results)


def test_an_endless_loop_is_stopped_at_the_test_time_limit(graded):
    _, _, out, run = graded
    results = json.loads((out / "endless_loop" / "results.json").read_text())
    assert results["status"] == "fail" and states(out)["endless_loop"] == "failing", run.stdout + run.stderr
    assert "stopped after 2 s" in first_failure(results)


def test_untouched_and_missing_files_are_not_run_and_names_stay_distinct(graded):
    out, run, _, _ = graded
    assert states(out)["a-exercises"] == "not attempted" and states(out)["b-exercises"] == "missing"
    assert json.loads((out / "a-exercises" / EXERCISE / "results.json").read_text())["tests"] == []
    assert output_names([Path("x/exercises"), Path("y/exercises"), Path("z/alice")]) == \
        ["x-exercises", "y-exercises", "alice"]
    assert "honest_solved" in run.stdout and (out / "summary.md").is_file()


def test_results_follow_the_exercism_interface_version_3(graded):
    out, _, _, _ = graded
    results = json.loads((out / "calls_sys_exit" / "results.json").read_text())
    assert results["version"] == 3 and set(results) == {"version", "status", "tests"}
    for test in results["tests"]:
        assert {"name", "test_code", "status", "message", "output"} <= set(test) <= {
            "name", "test_code", "status", "message", "output", "task_id"}
        assert test["status"] in ("pass", "fail", "error") and test["test_code"].startswith("def test_")
        assert test["output"] is None or len(test["output"]) <= 500
        assert isinstance(test.get("task_id", 1), int)
