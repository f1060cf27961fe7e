"""The manifest: the single source of the exercise order, their files and their hints.

Everything that needs to know which exercises exist (the pytest plugin's summary, the `kata`
command, the maintainer gates) reads ``speckata/manifest.toml`` through this module. The file
names of an exercise are not stored: they follow from its id (see ``Exercise.file`` and siblings).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MANIFEST_PATH = Path(__file__).with_name("manifest.toml")
DIFFICULTIES = ("easy", "medium", "hard")
ID_PATTERN = re.compile(r"[0-9]{2}-[a-z0-9]+(-[a-z0-9]+)*")


def _named(pattern: str, doc: str | None = None) -> property:
    """A name that follows from the exercise's id: ``pattern`` formatted with the exercise as ``exercise``."""
    return property(lambda exercise: pattern.format(exercise=exercise), doc=doc)


@dataclass(frozen=True)
class Exercise:
    id: str  # "NN-some-name": NN (two digits) is the order, the rest names every file
    title: str
    difficulty: str
    track: str
    functions: tuple[str, ...]
    teaches: str  # one line, shown when the exercise is solved
    hints: tuple[str, ...]
    requires: tuple[str, ...] = ()  # ids of earlier exercises whose functions this one imports

    @property
    def number(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def snake_name(self) -> str:
        """"01-speculative-step" -> "01_speculative_step"."""
        return self.id.replace("-", "_")

    # Its module and its files, named from the id (the manifest stores none of them).
    module = _named("ex{exercise.snake_name}")
    file = _named("{exercise.module}.py", "The learner's file, relative to exercises/ (solutions/ has the same name).")
    tests = _named("tests/test_{exercise.snake_name}.py", "The grading suite, relative to the repository root.")
    theory = _named("theory/{exercise.id}.md")
    notebook = _named("notebooks/{exercise.id}.ipynb")


def repo_root() -> Path:
    """The checkout this package belongs to (it holds exercises/, solutions/ and tests/)."""
    candidate = Path(__file__).resolve().parent.parent
    if (candidate / "exercises").is_dir():
        return candidate
    for folder in [Path.cwd(), *Path.cwd().parents]:
        if (folder / "exercises").is_dir() and (folder / "speckata").is_dir():
            return folder
    raise RuntimeError("not inside a speckata checkout: no folder above holds exercises/ and speckata/")


@lru_cache(maxsize=1)
def load_manifest() -> tuple[Exercise, ...]:
    with MANIFEST_PATH.open("rb") as handle:
        raw = tomllib.load(handle)
    exercises = []
    for entry in raw["exercise"]:
        entry = dict(entry)
        entry["functions"] = tuple(entry["functions"])
        entry["hints"] = tuple(entry["hints"])
        entry["requires"] = tuple(entry.get("requires", ()))
        if not ID_PATTERN.fullmatch(entry["id"]):
            raise ValueError(f"manifest.toml: id {entry['id']!r} is not NN-lowercase-words")
        exercises.append(Exercise(**entry))
    # The number in front of each id is the order (so entries may be appended in any order).
    exercises.sort(key=lambda exercise: int(exercise.id.split("-", 1)[0]))
    ids = [exercise.id for exercise in exercises]
    if len(set(ids)) != len(ids):
        raise ValueError(f"manifest.toml lists an exercise id twice: {ids}")
    for exercise in exercises:
        for required in exercise.requires:
            if required not in ids or required >= exercise.id:
                raise ValueError(f"manifest.toml: {exercise.id} requires {required!r}, which is not an earlier exercise")
    return tuple(exercises)


def exercise_by_id(exercise_id: str) -> Exercise:
    for exercise in load_manifest():
        if exercise.id == exercise_id:
            return exercise
    known = ", ".join(exercise.id for exercise in load_manifest())
    raise KeyError(f"no exercise {exercise_id!r} in the manifest (known: {known})")


def exercise_for_test_file(path: Path) -> Exercise | None:
    """The exercise whose grading suite is ``path``, or None for support tests."""
    root = repo_root()
    for exercise in load_manifest():
        if (root / exercise.tests).resolve() == Path(path).resolve():
            return exercise
    return None
