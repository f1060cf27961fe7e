"""`kata new` writes an exercise that fits the repository, run for real in a throwaway copy.

The copy holds the working tree's package, tests, exercises, solutions, theory pages, notebooks and
top-level files. `python -m speckata.cli new` runs inside it with the copy first on PYTHONPATH, so
the copy's own package, manifest and README are the ones read and written (the real ones are
checked to stay untouched). Then the copy's own gates run on the result: the shape gate and the
README's ladder fail nowhere they did not fail before `kata new` (so a tree that other work has
left half-done does not count against the command), and the per-exercise gates of the new ids
pass; the new stub grades "not attempted" and the new solution, a placeholder until its author
writes it, does not pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from speckata.manifest import load_manifest, repo_root

ROOT = repo_root()
COPIED = ("speckata", "tests", "exercises", "solutions", "theory", "notebooks",
          "pyproject.toml", "README.md", "CONTRIBUTING.md")
# Free numbers after the last exercise, so the test keeps working as the ladder grows.
NEXT = int(load_manifest()[-1].id[:2]) + 1
ONE = f"{NEXT:02d}-some-thing"  # every option left to its default
TWO = f"{NEXT + 1:02d}-two-things"  # two functions (two tasks), track and difficulty given
# The gates a new exercise must pass at once (the solutions, mutant, notebook and exercise-text
# gates wait, on purpose, until its author has written the solution, the mutants and the pages).
PER_EXERCISE_GATES = ("tests/maintainer/test_theory_pages.py::test_theory_page_examples[{id}.md]",
                      "tests/maintainer/test_stubs_are_resettable.py::test_each_function_of_the_stub_has_its_todo_and_raises[{id}]",
                      "tests/maintainer/test_tasks.py::test_suite_and_text_number_the_same_tasks[{id}]")


def run_in(copy: Path, *command: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update({"PYTHONPATH": str(copy), "SPECKATA_STATE_DIR": str(copy / ".speckata")})
    return subprocess.run([sys.executable, *command], check=False, cwd=copy, env=environment, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)


def kata_new(copy: Path, *args: str) -> subprocess.CompletedProcess:
    return run_in(copy, "-m", "speckata.cli", "new", *args)


WHOLE_TREE_GATES = ("tests/maintainer/test_repository_shape.py", "tests/maintainer/test_readme_ladder.py")


def failed_gates(copy: Path, *selection: str) -> set[str]:
    """The node ids of the selected maintainer tests that fail in the copy."""
    report = copy / "gates.json"
    run = run_in(copy, "-m", "pytest", "--maintainer", "-q", "-p", "no:cacheprovider", f"--report-json={report}",
                 *selection)
    assert report.is_file() and run.returncode in (0, 1), shown(run)  # ran to the end; a missing node id is rc 4
    failed = {test["nodeid"] for test in json.loads(report.read_text())["tests"] if test["outcome"] != "passed"}
    report.unlink()
    return failed


def shown(run: subprocess.CompletedProcess) -> str:
    return f"exit {run.returncode}\n--- stdout\n{run.stdout[-4000:]}\n--- stderr\n{run.stderr[-4000:]}"


def written_to_the_real_repository() -> list[str]:
    """What of the new exercises is in the real repository (compared by id: others may be editing it)."""
    texts = {name: (ROOT / name).read_text() for name in ("speckata/manifest.toml", "README.md")}
    found = [f"{name} names {ident}" for name, text in texts.items() for ident in (ONE, TWO) if ident in text]
    return found + [str(p) for ident in (ONE, TWO) for p in (ROOT / "exercises").glob(f"ex{ident[:2]}_*")]


@pytest.fixture(scope="module")
def created(tmp_path_factory):
    """A copy of the repository in which `kata new` wrote two exercises: (copy, the two runs, the gates'
    failures before them)."""
    copy = tmp_path_factory.mktemp("kata-new") / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".ipynb_checkpoints")
    for name in COPIED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, copy / name, ignore=ignore)
        else:
            shutil.copy(ROOT / name, copy / name)
    failed_before = failed_gates(copy, *WHOLE_TREE_GATES)
    assert not written_to_the_real_repository()
    runs = (kata_new(copy, ONE, "Some thing"),
            kata_new(copy, TWO, 'Two "things", γ at a time', "--functions", "first_thing,second_thing",
                     "--track", "numpy", "--difficulty", "hard"))
    assert not written_to_the_real_repository(), "kata new wrote to the real repository, not to the copy it ran in"
    return copy, runs, failed_before


def test_new_writes_every_piece_and_says_what_to_do_next(created):
    copy, runs, _ = created
    for run in runs:
        assert run.returncode == 0, shown(run)
    module = f"ex{ONE.replace('-', '_')}"
    pieces = [f"exercises/{module}.py", f"solutions/{module}.py", f"tests/test_{ONE.replace('-', '_')}.py",
              f"tests/reference/ex{ONE[:2]}_reference.py", f"tests/mutants/{module}.toml", f"theory/{ONE}.md",
              f"notebooks/sources/{ONE}.py", f"notebooks/{ONE}.ipynb"]
    for piece in pieces:
        assert (copy / piece).is_file() and ONE in (copy / piece).read_text(), f"{piece} missing or without its id"
        assert piece in runs[0].stdout, f"the summary does not list {piece}:\n{runs[0].stdout}"
    for step in ("speckata/manifest.toml", "README.md", f"python notebooks/build.py {ONE}",
                 ".venv/bin/python -m pytest --target solutions --maintainer"):
        assert step in runs[0].stdout, f"the summary does not mention {step!r}:\n{runs[0].stdout}"
    manifest = (copy / "speckata" / "manifest.toml").read_text()
    assert 'title = "Two \\"things\\", γ at a time"' in manifest and 'functions = ["first_thing", "second_thing"]' in manifest


def test_the_new_exercises_pass_the_shape_gate_of_the_copy(created):
    copy, _, failed_before = created
    gates = [gate.format(id=ident) for ident in (ONE, TWO) for gate in PER_EXERCISE_GATES]
    failed = failed_gates(copy, *WHOLE_TREE_GATES, *gates)
    assert failed <= failed_before, f"failing since kata new: {sorted(failed - failed_before)}"


@pytest.mark.parametrize(("target", "state", "says"), [
    ("exercises", "not attempted", "is not written yet"),
    ("solutions", "failing", "the reference raised NotImplementedError"),
])
def test_the_stub_is_not_attempted_and_the_placeholder_solution_does_not_pass(created, target, state, says):
    copy, _, _ = created
    report = copy / f"report-{target}.json"
    suites = [f"tests/test_{ident.replace('-', '_')}.py" for ident in (ONE, TWO)]
    run = run_in(copy, "-m", "pytest", *suites, f"--target={target}", f"--report-json={report}", "-q",
                 "-p", "no:cacheprovider")
    result = json.loads(report.read_text())
    assert {ident: result["states"][ident] for ident in (ONE, TWO)} == {ONE: state, TWO: state}, shown(run)
    tests = [test for test in result["tests"] if test["exercise"] in (ONE, TWO)]
    assert len(tests) == 3 and all(says in test["message"] for test in tests), tests
    assert sorted(test["task"] for test in tests if test["exercise"] == TWO) == [1, 2]


@pytest.mark.parametrize(("args", "says"), [
    ((ONE, "Again"), "already in speckata/manifest.toml"),
    (("01-another-name", "Taken"), "the number 01 is taken by 01-speculative-step"),
    (("1-bad_Name", "Bad"), "is not an exercise id"),
    ((f"{NEXT + 2:02d}-fresh", "A | B"), "the title holds '|'"),
    ((f"{NEXT + 2:02d}-fresh", "Fresh", "--functions", "ok,class"), "'class' not a Python name"),
])
def test_refusals_exit_2_and_write_nothing(created, args, says):
    copy, _, _ = created
    before = {path: path.read_text() for path in (copy / "speckata" / "manifest.toml", copy / "README.md")}
    files = sorted(str(p) for p in copy.rglob("*") if "__pycache__" not in p.parts)
    run = kata_new(copy, *args)
    assert run.returncode == 2 and says in run.stderr, shown(run)
    assert {path: path.read_text() for path in before} == before
    assert sorted(str(p) for p in copy.rglob("*") if "__pycache__" not in p.parts) == files


def test_a_number_used_by_files_outside_the_manifest_is_taken(created):
    copy, _, _ = created
    stray = copy / "solutions" / f"ex{NEXT + 2:02d}_work_in_progress.py"
    stray.write_text("")
    try:
        run = kata_new(copy, f"{NEXT + 2:02d}-fresh", "Fresh")
        assert run.returncode == 2 and f"is taken by solutions/{stray.name}" in run.stderr, shown(run)
    finally:
        stray.unlink()


def test_an_existing_file_is_never_overwritten(created):
    copy, _, _ = created
    fresh = f"{NEXT + 2:02d}-fresh"
    page = copy / "theory" / f"{fresh}.md"
    page.write_text("an author's draft\n")
    try:
        run = kata_new(copy, fresh, "Fresh")
        assert run.returncode == 2 and f"theory/{fresh}.md already exists" in run.stderr, shown(run)
        assert page.read_text() == "an author's draft\n"
        assert not (copy / "exercises" / f"ex{fresh.replace('-', '_')}.py").exists()
    finally:
        page.unlink()
