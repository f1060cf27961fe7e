"""`kata`'s one rule for "next", its instant listing, prerequisites, and how hints wrap.

Issue 11 §3: after solving 07 the verdict said "Next: 08" while `kata` said 05. Issue 17 item 7:
`kata list` re-graded every edited file, and "Next" pointed at an exercise solved but edited
since. Issue 17 item 4: exercise 11 failing because 09 is unsolved blamed 11's file. The commands
run in a throwaway git copy of the repository (its own exercises/ and state), so the real
exercises/ is never touched; progress records are written by hand where grading is not the point.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from speckata.cli.hint import OPERATORS, wrap_hint
from speckata.manifest import exercise_by_id, load_manifest, repo_root

ROOT = repo_root()


def kata(*args: str, root: Path, state_dir: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update({"SPECKATA_STATE_DIR": str(state_dir), "PYTHONPATH": str(root)})
    return subprocess.run([sys.executable, "-m", "speckata.cli", *args], cwd=cwd or root, env=environment,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)


def shown(run: subprocess.CompletedProcess) -> str:
    return f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"


@pytest.fixture
def repository(tmp_path) -> Path:
    """A git copy of the package, suites, stubs and solutions, with the stubs committed."""
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "maintainer", "kata_samples")
    for folder in ("speckata", "tests", "exercises", "solutions"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    for exercise in load_manifest():  # the stubs as committed, whatever the working tree holds now
        committed = subprocess.run(["git", "show", f"HEAD:exercises/{exercise.file}"], cwd=ROOT,
                                   capture_output=True, text=True)
        if committed.returncode == 0:
            (copy / "exercises" / exercise.file).write_text(committed.stdout)
    git = ["git", "-c", "user.name=kata test", "-c", "user.email=kata@example.invalid"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "stubs"]):
        subprocess.run(git + command, cwd=copy, check=True, capture_output=True)
    return copy


@pytest.fixture
def state_dir(tmp_path) -> Path:
    return tmp_path / "state"


def record(state_dir: Path, root: Path, exercise_id: str, state: str) -> None:
    """What `kata check` records: the verdict and the hash of the file it graded."""
    path = state_dir / "state.json"
    data = json.loads(path.read_text()) if path.is_file() else {"version": 1, "exercises": {}}
    learner_file = root / "exercises" / exercise_by_id(exercise_id).file
    data["exercises"][exercise_id] = {"state": state, "sha256": hashlib.sha256(learner_file.read_bytes()).hexdigest(),
                                      "solved_once": state == "solved"}
    state_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def solve(root: Path, exercise_id: str) -> None:
    file = exercise_by_id(exercise_id).file
    shutil.copy(root / "solutions" / file, root / "exercises" / file)


def marked_row(listing: str) -> str:
    return next(line for line in listing.splitlines() if line.startswith("->"))


def row(listing: str, exercise_id: str) -> str:
    return next(line for line in listing.splitlines() if exercise_id in line)


def test_after_a_solve_every_command_names_the_same_next_exercise(repository, state_dir):
    """Solving 02 with 01 untouched: the verdict, `kata`, `kata list` and `kata hint` all say 01."""
    solve(repository, "02-acceptance-rate")
    checked = kata("check", "02", root=repository, state_dir=state_dir)
    assert checked.returncode == 0 and "SOLVED" in checked.stdout, shown(checked)
    assert "Next: 01-speculative-step" in checked.stdout, shown(checked)
    status = kata(root=repository, state_dir=state_dir)
    assert "Next: 01-speculative-step" in status.stdout, shown(status)
    listing = kata("list", root=repository, state_dir=state_dir)
    assert "01-speculative-step" in marked_row(listing.stdout), shown(listing)
    assert "solved" in row(listing.stdout, "02-acceptance-rate"), shown(listing)
    hint = kata("hint", root=repository, state_dir=state_dir)
    assert hint.stdout.startswith("01-speculative-step: hint 1 of"), shown(hint)


def test_list_never_grades_and_next_skips_a_solved_then_edited_exercise(repository, state_dir):
    solve(repository, "01-speculative-step")
    record(state_dir, repository, "01-speculative-step", "solved")
    with (repository / "exercises" / exercise_by_id("01-speculative-step").file).open("a") as handle:
        handle.write("\n# tidied up after solving it\n")
    solve(repository, "03-speedup")  # edited, never checked: only `kata check` may grade it

    listing = kata("list", root=repository, state_dir=state_dir)
    assert listing.returncode == 0, shown(listing)
    assert "changed since its last check" in row(listing.stdout, "01-speculative-step"), shown(listing)
    assert "not checked yet" in row(listing.stdout, "03-speedup"), shown(listing)
    assert "grading" not in listing.stderr, shown(listing)
    assert "02-acceptance-rate" in marked_row(listing.stdout), shown(listing)
    status = kata(root=repository, state_dir=state_dir)
    assert "Next: 02-acceptance-rate" in status.stdout and "grading" not in status.stderr, shown(status)
    assert kata("hint", root=repository, state_dir=state_dir).stdout.startswith("02-acceptance-rate: hint 1")


def test_prerequisites_are_listed_and_shown_with_their_state(repository, state_dir):
    for exercise in load_manifest():
        if exercise.id < "11":
            record(state_dir, repository, exercise.id, "solved")
    listing = kata("list", root=repository, state_dir=state_dir)
    assert "(uses 01, 04)" in row(listing.stdout, "05-sampling-settings"), shown(listing)
    assert "(uses 09)" in row(listing.stdout, "11-distill-draft"), shown(listing)
    status = kata(root=repository, state_dir=state_dir)
    assert "Next: 11-distill-draft" in status.stdout, shown(status)
    assert "uses:      09-distillation-loss (solved)" in status.stdout, shown(status)


def test_a_failure_inside_an_unsolved_prerequisite_says_solve_it_first(tmp_path, state_dir):
    """05 imports 01: with 01 still a stub, 05's check points at 01, not at 05's file."""
    folder = tmp_path / "learner"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    stub = subprocess.run(["git", "show", "HEAD:exercises/ex01_speculative_step.py"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
    (folder / "ex01_speculative_step.py").write_text(stub)
    checked = kata("check", "05", f"--target={folder}", root=ROOT, state_dir=state_dir)
    assert checked.returncode != 0, shown(checked)
    assert "SOLVE 01 FIRST" in checked.stdout and "uses 01-speculative-step" in checked.stdout, shown(checked)
    assert "Solve 01 first: kata check 01-speculative-step" in checked.stdout, shown(checked)
    assert "Fix " not in checked.stdout, shown(checked)


HINTS = [(exercise.id, tier, text) for exercise in load_manifest() for tier, text in enumerate(exercise.hints, 1)]


@pytest.mark.parametrize("exercise_id, tier, text", HINTS, ids=[f"{e}-{t}" for e, t, _ in HINTS])
def test_hints_wrap_between_words_and_outside_formulas(exercise_id, tier, text):
    lines = [line.strip() for line in wrap_hint(text).splitlines()]
    assert " ".join(lines) == text, "wrapping lost or changed characters"
    for before, after in zip(lines, lines[1:]):
        assert not before.endswith("-"), f"a hyphenated word is broken: {before[-20:]!r} | {after[:20]!r}"
        assert before.split()[-1] not in OPERATORS and after.split()[0] not in OPERATORS, \
            f"a formula is broken: {before[-20:]!r} | {after[:20]!r}"


def test_the_hint_that_broke_all_accepted_and_gamma_keeps_them_whole():
    lines = wrap_hint(exercise_by_id("08-batched-verifier").hints[2]).splitlines()
    assert any("all-accepted" in line for line in lines) and any("γ = 0" in line for line in lines)
