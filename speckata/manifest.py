"""The manifest: the single source of the exercise order, their files and their hints.

Everything that needs to know which exercises exist (the pytest plugin's summary, the `kata`
command, the maintainer gates) reads ``speckata/manifest.toml`` through this module.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    difficulty: str
    track: str
    file: str  # the learner's file, relative to exercises/ (solutions/ has the same name)
    functions: tuple[str, ...]
    tests: str  # the grading suite, relative to the repository root
    theory: str
    notebook: str
    teaches: str  # one line, shown when the exercise is solved
    hints: tuple[str, ...]

    @property
    def module(self) -> str:
        return Path(self.file).stem


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
        exercises.append(Exercise(**entry))
    # The number in front of each id is the order (so entries may be appended in any order).
    exercises.sort(key=lambda exercise: int(exercise.id.split("-", 1)[0]))
    ids = [exercise.id for exercise in exercises]
    if len(set(ids)) != len(ids):
        raise ValueError(f"manifest.toml lists an exercise id twice: {ids}")
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
