"""The repository's own shape, as rustlings checks its own: the manifest and the files agree."""

from __future__ import annotations

import re

import pytest

from speckata.manifest import DIFFICULTIES, MANIFEST_PATH, load_manifest, repo_root

ROOT = repo_root()
EXERCISES = load_manifest()
IDS = [exercise.id for exercise in EXERCISES]


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_every_file_of_the_exercise_exists_and_names_it(exercise):
    files = {
        "stub": ROOT / "exercises" / exercise.file,
        "solution": ROOT / "solutions" / exercise.file,
        "grading suite": ROOT / exercise.tests,
        "theory page": ROOT / exercise.theory,
        "notebook": ROOT / exercise.notebook,
    }
    for role, path in files.items():
        assert path.is_file(), f"{exercise.id}: the {role} {path.relative_to(ROOT)} is missing"
        assert exercise.id in path.read_text(), f"{exercise.id}: the {role} {path.relative_to(ROOT)} never names its exercise id"


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_every_stub_has_a_todo_for_each_function_and_raises(exercise):
    stub = (ROOT / "exercises" / exercise.file).read_text()
    assert f"TODO({exercise.id})" in stub, f"{exercise.file} has no TODO({exercise.id}) marker"
    for name in exercise.functions:
        assert re.search(rf"^def {name}\(", stub, re.M), f"{exercise.file} does not define {name}"
        assert re.search(rf"^def {name}\(", (ROOT / "solutions" / exercise.file).read_text(), re.M)
    assert "raise NotImplementedError" in stub


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_every_exercise_has_hints_a_title_and_a_lesson(exercise):
    assert exercise.hints and all(h.strip() for h in exercise.hints), f"{exercise.id}: empty hint"
    assert len(exercise.hints) >= 2, f"{exercise.id}: hints should come in tiers"
    assert exercise.title.strip() and exercise.teaches.strip()
    assert exercise.difficulty in DIFFICULTIES


def test_ids_are_numbered_uniquely():
    numbers = [int(exercise.id.split("-", 1)[0]) for exercise in EXERCISES]
    assert len(set(numbers)) == len(numbers), "two exercises share a number"


def test_file_names_are_derived_from_the_id_not_stored():
    exercise = next(e for e in EXERCISES if e.id == "01-speculative-step")
    assert (exercise.file, exercise.tests, exercise.theory, exercise.notebook) == (
        "ex01_speculative_step.py", "tests/test_01_speculative_step.py",
        "theory/01-speculative-step.md", "notebooks/01-speculative-step.ipynb")
    stored = re.findall(r"^(file|tests|theory|notebook) = ", MANIFEST_PATH.read_text(), re.M)
    assert not stored, f"manifest.toml stores {sorted(set(stored))}: these follow from the id, delete them"


def test_prerequisites_are_earlier_exercises_whose_functions_are_imported():
    """`requires` lists what the solution imports from earlier exercises (10 may reuse 01's rule)."""
    ids = set(IDS)
    for exercise in EXERCISES:
        imported = set(re.findall(r"^from (ex\d\d_\w+) import", (ROOT / "solutions" / exercise.file).read_text(), re.M))
        declared = {e.module for e in EXERCISES if e.id in exercise.requires}
        assert set(exercise.requires) <= ids and all(r < exercise.id for r in exercise.requires)
        assert imported <= declared, f"{exercise.id} imports {sorted(imported - declared)} but its manifest entry does not require it"


def python_files(folder):
    return {p.name for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py"}


def test_solutions_mirror_exercises_file_for_file():
    assert python_files("exercises") == python_files("solutions")


def test_no_exercise_file_is_missing_from_the_manifest():
    listed = {exercise.file for exercise in EXERCISES}
    assert python_files("exercises") == listed
    suites = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob("test_*.py")}
    assert suites == {exercise.tests for exercise in EXERCISES}
    mutants = {p.stem for p in (ROOT / "tests" / "mutants").glob("*.toml")}
    assert mutants == {exercise.module for exercise in EXERCISES}
