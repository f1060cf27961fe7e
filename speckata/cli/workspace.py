"""Where `kata` works: the repository root (found by walking up), the graded folder, the state."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from speckata.cli.colour import Palette, colour_wanted
from speckata.cli.state import State, state_folder
from speckata.grading.target import resolve_target
from speckata.manifest import Exercise, load_manifest, repo_root


class UsageProblem(Exception):
    """A mistake on the command line (an unknown id, a missing folder): exit code 2."""


def find_root(start: Path | None = None) -> Path:
    """The checkout holding the current folder: the first folder upwards with exercises/ and the manifest."""
    start = (start or Path.cwd()).resolve()
    for folder in [start, *start.parents]:
        if (folder / "exercises").is_dir() and (folder / "speckata" / "manifest.toml").is_file():
            return folder
    return repo_root()  # outside any checkout: the one this package was installed from


@dataclass
class Workspace:
    root: Path
    target: Path  # the graded folder, laid out like exercises/
    learner_folder: bool  # grading the root's own exercises/: verdicts are recorded in the state
    state: State
    palette: Palette
    test_timeout: float
    timeout: float
    target_option: str  # " --target PATH" to repeat in suggested commands, or ""

    def shown(self, path: Path | str) -> str:
        """A path as printed: relative to the repository root when inside it."""
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def learner_file(self, exercise: Exercise) -> Path:
        return self.target / exercise.file

    def suggest(self, command: str) -> str:
        return self.palette.command(f"kata {command}{self.target_option}")


def graded_folder(value: str | None, root: Path) -> Path:
    """The folder ``--target`` names (the plugin's own rule), or the root's exercises/."""
    if value is None:
        return root / "exercises"
    folder = resolve_target(value, Path.cwd())
    if not folder.is_dir():
        raise UsageProblem(f"--target {value}: no such folder")
    return folder


def open_workspace(args) -> Workspace:
    root = find_root()
    target = graded_folder(getattr(args, "target", None), root)
    learner_folder = target == (root / "exercises").resolve()
    return Workspace(
        root=root,
        target=target,
        learner_folder=learner_folder,
        state=State(state_folder(root)),
        palette=Palette(colour_wanted(sys.stdout)),
        test_timeout=getattr(args, "test_timeout", 30.0),
        timeout=getattr(args, "timeout", 300.0),
        target_option="" if learner_folder else f" --target {getattr(args, 'target')}",
    )


def find_exercise(text: str) -> Exercise:
    """An exercise from its id, its number ("1", "01") or a unique part of its name."""
    exercises = load_manifest()
    wanted = text.strip().lower()
    for exercise in exercises:
        if exercise.id == wanted:
            return exercise
    if re.fullmatch(r"\d+", wanted):
        for exercise in exercises:
            if int(exercise.id.split("-", 1)[0]) == int(wanted):
                return exercise
    matches = [e for e in exercises if wanted in e.id or wanted.replace("_", "-") in e.id]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(e.id for e in exercises)
    if matches:
        raise UsageProblem(f"{text!r} matches several exercises: {', '.join(e.id for e in matches)}")
    raise UsageProblem(f"no exercise {text!r} (known: {known})")
