"""`kata grade`: learner code runs in a sandbox, and no way of cheating or ending the process is a pass.

The sample folders in tests/kata_samples/isolation/ each hold one version of exercise 01. Graded
in-process, `imports_solutions` and `patches_the_report` were both graded solved; graded with only
the worker's audit hook (`--no-sandbox`), the ctypes, dir_fd, hard-link, /proc and write-into-the-
grader samples were. Here every one of them but the honest solution must come out failing, with a
message that says what happened; the repository must be byte for byte as before; no process of the
sandbox may be left; the results must stay as written seconds after `kata grade` returns; the
hidden suite's seed, given in a file, must appear in no process's command line; and the results
must follow the exercism interface (version 3). Limits are generous (no dependence on the
machine's speed), except the endless loop's own run, whose 2 s limit is what it tests.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from speckata.cli.grade_summary import output_names
from speckata.manifest import load_manifest, repo_root
from tests.maintainer.grade_folders import exercises_folder, sandboxed_run_folder
from tests.maintainer.process_lines import command_lines

ROOT = repo_root()
SAMPLES = ROOT / "tests" / "kata_samples" / "isolation"
EXERCISE = "01-speculative-step"
SEED = "918273645"  # the hidden suite's seed, handed over in a file

# sample -> a phrase of the first failure's message (what the grader saw)
CHEATS = {
    "imports_solutions": "No module named 'solutions'",
    "reads_the_reference": "does not let your code open",
    "patches_the_report": "got the worked example (all accepted) wrong",
    "exits_early": "ended with exit code 0",
    "calls_sys_exit": "your code called sys.exit(0)",
    "crashes": "SIGSEGV",
    "memory_hog": "MemoryError",
    "writes_into_the_grader": "got the worked example (all accepted) wrong",
    "opens_by_dir_fd": "importing the file raised",
    "hard_links_the_reference": "No such file or directory",
    "ctypes_opens_the_reference": "libc open refused",
    "ctypes_fork_outlives_the_grader": "got the worked example (all accepted) wrong",
    "reads_the_parents_proc": "got the worked example (all accepted) wrong",
    "rewrites_its_inputs": "changed its input in place",
}


def kata_grade(folders: list[Path], out: Path, *options: str, poll=None, tmpdir: Path | None = None
               ) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "speckata.cli", "grade", *map(str, folders), "--out", str(out),
               "--exercise", EXERCISE, "--jobs", "2", "--memory", "2048", *options]
    env = {**os.environ, "TMPDIR": str(tmpdir)} if tmpdir else None  # every worker's folder lies under it
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    while poll is not None and process.poll() is None:
        poll()
        time.sleep(0.2)
    stdout, stderr = process.communicate(timeout=1800)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def repository_fingerprint() -> dict[str, str]:
    """Every file of the checkout but .git's and the environments' (.venv, .speckata), with a hash of it."""
    hashes = {}
    for folder, folders, files in os.walk(ROOT):
        folders[:] = [f for f in folders if f not in (".git", ".venv", ".speckata", "__pycache__", ".pytest_cache", "build")]
        for name in files:
            path = Path(folder) / name
            hashes[str(path.relative_to(ROOT))] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
    return hashes


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = sandboxed_run_folder(tmp_path_factory, "class")
    untouched, empty = exercises_folder(base, "a"), exercises_folder(base, "b")
    shutil.copy(ROOT / "exercises" / "ex01_speculative_step.py", untouched)
    seed_file = base / "seed"
    seed_file.write_text(SEED)
    out = base / "out"
    folders = [SAMPLES / "honest_solved", *(SAMPLES / name for name in CHEATS), untouched, empty]
    before = repository_fingerprint()
    seen_seed = []
    tmpdir = base / "tmp"  # this run's own: its workers' command lines name it, other runs' do not
    tmpdir.mkdir()
    run = kata_grade(folders, out, "--test-timeout", "600", "--streams-file", str(seed_file), tmpdir=tmpdir,
                     poll=lambda: seen_seed.extend(line for line in command_lines() if SEED in line))
    after = {"repository": repository_fingerprint(), "leftovers": [c for c in command_lines() if str(tmpdir) in c],
             "temporary": list(tmpdir.iterdir()), "results": {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}}
    time.sleep(6)  # the forking sample's grandchild would rewrite the results 4 s after its start
    later = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    loop_tmpdir = base / "loop-tmp"
    loop_tmpdir.mkdir()
    loop = kata_grade([SAMPLES / "endless_loop"], base / "loop", "--test-timeout", "2", tmpdir=loop_tmpdir)
    loop_leftovers = [c for c in command_lines() if str(loop_tmpdir) in c]
    return {"out": out, "run": run, "loop_out": base / "loop", "loop": loop, "before": before, "after": after,
            "later": later, "seen_seed": seen_seed, "loop_leftovers": loop_leftovers}


def first_failure(results: dict) -> str:
    return next(t["message"] for t in results["tests"] if t["status"] != "pass")


def states(out: Path) -> dict[str, str]:
    with open(out / "summary.csv", newline="") as file:
        return {row["learner"]: row[EXERCISE] for row in csv.DictReader(file)}


def test_the_honest_solution_passes_in_isolation(graded):
    out, run = graded["out"], graded["run"]
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((out / "honest_solved" / "results.json").read_text())
    assert results["status"] == "pass" and results["tests"], results
    assert states(out)["honest_solved"] == "solved"


@pytest.mark.parametrize("sample", list(CHEATS))
def test_a_cheat_or_an_early_end_is_never_a_pass(graded, sample):
    out = graded["out"]
    results = json.loads((out / sample / EXERCISE / "results.json").read_text())
    assert results["status"] != "pass" and states(out)[sample] != "solved"
    assert CHEATS[sample] in first_failure(results)


def test_an_endless_loop_is_stopped_at_the_test_time_limit(graded):
    out, run = graded["loop_out"], graded["loop"]
    results = json.loads((out / "endless_loop" / "results.json").read_text())
    assert results["status"] == "fail" and states(out)["endless_loop"] == "failing", run.stdout + run.stderr
    assert "stopped after 2 s" in first_failure(results)
    assert graded["loop_leftovers"] == [], "the stopped worker's sandbox left a process behind"


def test_untouched_and_missing_files_are_not_run_and_names_stay_distinct(graded):
    out, run = graded["out"], graded["run"]
    assert states(out)["a-exercises"] == "not attempted" and states(out)["b-exercises"] == "missing"
    assert json.loads((out / "a-exercises" / EXERCISE / "results.json").read_text())["tests"] == []
    assert output_names([Path("x/exercises"), Path("y/exercises"), Path("z/alice")]) == \
        ["x-exercises", "y-exercises", "alice"]
    assert "honest_solved" in run.stdout and (out / "summary.md").is_file()


def test_every_results_file_conforms_to_the_exercism_schema(graded):
    import jsonschema

    schema = json.loads((Path(__file__).parent / "exercism_results_v3.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    files = sorted(graded["out"].rglob("results.json"))
    assert len(files) >= 2 * (len(CHEATS) + 3)
    for path in files:
        errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(json.loads(path.read_text()))]
        assert not errors, f"{path.relative_to(graded['out'])}: {errors[:3]}"


def test_a_stub_or_a_missing_file_is_an_error_that_says_nothing_ran(graded):
    out = graded["out"]
    for folder, why in (("a-exercises", "not attempted"), ("b-exercises", "missing")):
        for results in (json.loads((out / folder / EXERCISE / "results.json").read_text()),
                        json.loads((out / folder / "results.json").read_text())):
            assert results["status"] == "error" and results["message"] and results["tests"] == [], results
        assert why in json.loads((out / folder / EXERCISE / "results.json").read_text())["message"]


def test_results_follow_the_exercism_interface_version_3(graded):
    out = graded["out"]
    results = json.loads((out / "calls_sys_exit" / "results.json").read_text())
    assert results["version"] == 3 and set(results) == {"version", "status", "tests"}
    for test in results["tests"]:
        assert {"name", "test_code", "status", "message", "output"} <= set(test) <= {
            "name", "test_code", "status", "message", "output", "task_id"}
        assert test["status"] in ("pass", "fail", "error") and test["test_code"].startswith("def test_")
        assert test["output"] is None or len(test["output"]) <= 500
        assert isinstance(test.get("task_id", 1), int)


def test_the_repository_is_byte_for_byte_unchanged(graded):
    before, after = graded["before"], graded["after"]["repository"]
    changed = sorted(f for f in before.keys() | after.keys() if before.get(f) != after.get(f))
    assert not changed, f"files of the checkout added, removed or changed while grading: {changed}"


def test_no_process_of_a_sandbox_is_left_and_the_results_stay_as_written(graded):
    assert graded["after"]["leftovers"] == [], graded["after"]["leftovers"]
    assert graded["after"]["temporary"] == [], graded["after"]["temporary"]
    changed = [str(p) for p, data in graded["later"].items() if graded["after"]["results"].get(p) != data]
    assert not changed, f"rewritten after kata grade returned: {changed}"


def test_the_seed_given_in_a_file_is_in_no_command_line_nor_in_the_results(graded):
    assert graded["seen_seed"] == [], graded["seen_seed"][:1]
    assert not [p for p, data in graded["later"].items() if SEED.encode() in data]
    assert "streams from a secret seed" in graded["run"].stdout
    assert "bubblewrap sandbox" in graded["run"].stdout and "bubblewrap sandbox" in (graded["out"] / "summary.md").read_text()


def test_sigterm_writes_what_was_graded_and_leaves_no_temporary_folder(tmp_path):
    """One folder at a time: the honest one first, then the endless loop (a 600 s limit); SIGTERM
    once the loop's run has started. The honest folder's results are written, the loop's say it
    was not graded, the exit code is 128 + 15, and the temporary folder kata grade was given
    (TMPDIR) is empty again."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = tmp_path / "out"
    command = [sys.executable, "-m", "speckata.cli", "grade", str(SAMPLES / "honest_solved"), str(SAMPLES / "endless_loop"),
               "--out", str(out), "--exercise", EXERCISE, "--jobs", "1", "--test-timeout", "600"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 600
    # Only this test's own runs (their command lines name its TMPDIR): another run of this suite
    # on the same machine must not be mistaken for ours.
    ours = lambda line: "endless_loop" in line and " -m pytest " in line and str(scratch) in line  # noqa: E731
    while not any(ours(line) for line in command_lines()):
        assert process.poll() is None and time.monotonic() < deadline, "the loop's run never started"
        time.sleep(0.1)
    process.terminate()
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + 15, stdout + stderr
    assert states(out) == {"honest_solved": "solved", "endless_loop": "error"}
    assert "interrupted (SIGTERM)" in json.loads((out / "endless_loop" / "results.json").read_text())["message"]
    assert list(scratch.iterdir()) == []
    assert not [line for line in command_lines() if ours(line)]


# Every exercise, in four shares (one kata grade each), so that `pytest -n 2` spreads them over its
# workers: graded as one folder, this one test was the longest of the whole run.
SHARES = 4
EXERCISE_IDS = [exercise.id for exercise in load_manifest()]


@pytest.mark.parametrize("share", range(SHARES), ids=lambda share: f"share-{share + 1}-of-{SHARES}")
def test_every_reference_solution_is_solved_inside_the_sandbox(share, tmp_path):
    """The sandbox holds what every exercise needs (torch, the shipped models and weights, earlier
    exercises of the same folder, gradients through a returned tensor): the reference solves all."""
    chosen = EXERCISE_IDS[share::SHARES]
    command = [sys.executable, "-m", "speckata.cli", "grade", str(ROOT / "solutions"), "--out", str(tmp_path / "out"),
               "--jobs", "1", "--test-timeout", "600", *[f"--exercise={exercise}" for exercise in chosen]]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]
    with open(tmp_path / "out" / "summary.csv", newline="") as file:
        row = next(csv.DictReader(file))
    assert {k: v for k, v in row.items() if k in chosen and v == "solved"}.keys() == set(chosen), row


def test_the_shares_grade_every_exercise_once():
    shares = [EXERCISE_IDS[share::SHARES] for share in range(SHARES)]
    assert sorted(sum(shares, [])) == sorted(EXERCISE_IDS) and all(shares)


def test_without_bubblewrap_kata_grade_refuses_unless_told_to_use_the_weaker_guard(tmp_path):
    """No bwrap on PATH: exit 4 and how to install it. With --no-sandbox it grades, says which guard
    it used, and that guard is weaker: the /proc sample sees the grader there and is graded solved."""
    env = {**os.environ, "PATH": str(tmp_path / "empty")}
    folders = [str(SAMPLES / "honest_solved"), str(SAMPLES / "reads_the_parents_proc")]
    command = [sys.executable, "-m", "speckata.cli", "grade", *folders, "--exercise", EXERCISE, "--jobs", "2"]
    refused = subprocess.run([*command, "--out", str(tmp_path / "refused")], cwd=ROOT, capture_output=True, text=True,
                             env=env, timeout=600, check=False)
    assert refused.returncode == 4 and "apt-get install bubblewrap" in refused.stderr, refused.stderr
    assert "--no-sandbox" in refused.stderr and not (tmp_path / "refused").exists()
    weak = subprocess.run([*command, "--out", str(tmp_path / "weak"), "--no-sandbox"], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=600, check=False)
    assert weak.returncode == 0, weak.stdout + weak.stderr
    assert "in-process guard only (--no-sandbox)" in weak.stdout
    assert "in-process guard only" in (tmp_path / "weak" / "summary.md").read_text()
    assert states(tmp_path / "weak") == {"honest_solved": "solved", "reads_the_parents_proc": "solved"}
