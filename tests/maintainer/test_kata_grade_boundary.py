"""`kata grade` against learners who attack the boundary and the grader itself (tests/kata_samples/boundary/).

Each probe is a learner folder (its docstring says what it tries). One kata grade run grades the
01-speculative-step probes with a secret in the grader's environment, beside an honest folder, a
folder named like the summary file and a folder holding a 2 GiB sparse file; a second run grades
the probe that answers exercise 03 with the package's own code. Probes that only *try* something
(reach another process, read the environment, fill memory or disk) raise when it worked, so they
must come out solved; probes that forge a reply or return a million tokens must fail, with the
message that says why.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from speckata.manifest import repo_root
from tests.maintainer.grade_folders import exercises_folder, sandboxed_run_folder
from tests.maintainer.process_lines import command_lines

ROOT = repo_root()
SAMPLES = ROOT / "tests" / "kata_samples" / "boundary"
HONEST = ROOT / "tests" / "kata_samples" / "isolation" / "honest_solved"
EXERCISE = "01-speculative-step"
SECRET = "SPECKATA_PROBE_SECRET"
MUST_BE_SOLVED = ("reaches_another_process", "reads_the_environment", "fills_the_sandbox_memory", "fills_its_folder")
MUST_FAIL = {  # probe -> phrases of its first failing test's message
    "huge_reply_header": ("the reply was not data", "more than"),
    "bytearray_reply": ("the reply was not data", "builtins.bytearray"),
    "forged_draws": ("the reply was not data", "builtins.type"),
    "returns_a_million_tokens": ("returned 1,000,000 tokens; the contract allows at most len(draft) + 1 = ",),
}


def kata_grade(folders: list[Path], out: Path, exercise: str, tmpdir: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "speckata.cli", "grade", *map(str, folders), "--out", str(out), "--exercise",
               exercise, "--jobs", "2", "--memory", "2048", "--test-timeout", "120"]
    env = {**os.environ, SECRET: "the instructor's secret", "TMPDIR": str(tmpdir)}
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, timeout=1800, check=False)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = sandboxed_run_folder(tmp_path_factory, "boundary")
    sparse = exercises_folder(base, "sparse")
    (sparse / "ex01_speculative_step.py").write_bytes((HONEST / "ex01_speculative_step.py").read_bytes())
    with open(sparse / "weights.bin", "wb") as file:
        file.truncate(2 * 1024**3)  # 2 GiB that take no disk: the copy must refuse it unread
    named_like_the_summary = base / "summary.md"
    named_like_the_summary.mkdir()
    (named_like_the_summary / "ex01_speculative_step.py").write_bytes((HONEST / "ex01_speculative_step.py").read_bytes())
    tmpdir = base / "tmp"
    tmpdir.mkdir()
    probes = [SAMPLES / name for name in (*MUST_BE_SOLVED, *MUST_FAIL)]
    run = kata_grade([HONEST, *probes, named_like_the_summary, sparse], base / "out", EXERCISE, tmpdir)
    leftovers = [line for line in command_lines() if str(tmpdir) in line]
    answers = kata_grade([SAMPLES / "calls_the_package_answers"], base / "answers", "03-speedup", tmpdir)
    return {"out": base / "out", "run": run, "leftovers": leftovers, "answers": answers,
            "answers_out": base / "answers", "tmpdir": tmpdir}


def states(out: Path, exercise: str = EXERCISE) -> dict[str, str]:
    with open(out / "summary.csv", newline="") as file:
        return {row["learner"]: row[exercise] for row in csv.DictReader(file)}


def first_failure(out: Path, folder: str) -> str:
    results = json.loads((out / folder / EXERCISE / "results.json").read_text())
    return next(t["message"] for t in results["tests"] if t["status"] != "pass")


@pytest.mark.parametrize("probe", MUST_BE_SOLVED)
def test_what_a_probe_tries_is_refused_so_it_is_solved(graded, probe):
    assert states(graded["out"])[probe] == "solved", first_failure(graded["out"], probe)


@pytest.mark.parametrize("probe", list(MUST_FAIL))
def test_a_forged_or_oversized_reply_fails_and_says_why(graded, probe):
    assert states(graded["out"])[probe] == "failing"
    message = first_failure(graded["out"], probe)
    assert all(phrase in message for phrase in MUST_FAIL[probe]), message


def test_nothing_of_a_sandbox_is_alive_after_kata_grade_returns(graded):
    assert graded["run"].returncode == 4, graded["run"].stdout + graded["run"].stderr  # 4: the sparse folder
    assert graded["leftovers"] == []
    assert not [line for line in command_lines() if str(graded["tmpdir"]) in line]


def test_a_folder_over_the_copy_limit_is_refused_unread_and_the_others_graded(graded):
    results = json.loads((graded["out"] / "exercises" / "results.json").read_text())  # sparse/exercises
    assert results["status"] == "error" and "more than 16 MB" in results["message"], results
    assert states(graded["out"])["honest_solved"] == "solved"


def test_every_message_and_results_file_stays_small(graded):
    for path in graded["out"].rglob("results.json"):
        assert path.stat().st_size < 1_000_000, path
        for test in json.loads(path.read_text())["tests"]:
            assert len(test["message"] or "") <= 25_000, (path, test["name"])


def test_a_folder_named_like_the_summary_cannot_take_its_place(graded):
    out = graded["out"]
    assert (out / "summary.md").is_file() and (out / "summary.csv").is_file()
    assert states(out)["summary.md-2"] == "solved"
    assert (out / "summary.md-2" / "results.json").is_file()


def test_the_package_holds_no_exercise_answer_to_call(graded):
    """speckata/bench/generate.py takes exercise 03's formula from solutions/, which the sandbox lacks."""
    assert states(graded["answers_out"], "03-speedup")["calls_the_package_answers"] != "solved"
    assert not (ROOT / "speckata" / "models" / "train_medusa.py").exists()
    assert not (ROOT / "speckata" / "models" / "train_eagle.py").exists()
