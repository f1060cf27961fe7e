"""What state each exercise is in, and the one rule for "next".

In the learner's folder a state is known without running anything: the file is missing, it is
unchanged since its last recorded verdict, or it is the committed stub. An edited file is
"changed since its last check" (or "not checked yet" when it never was): only `kata check` (and
`kata watch`) grade, so `kata` and `kata list` stay instant. With `--target PATH` nothing is
recorded, so `kata` and `kata list` grade what they cannot know (one pytest subprocess each).

"Next" is decided by `next_exercise` alone, everywhere (`kata`, `kata list`, `kata check` with and
without an id, `kata watch`, `kata hint`): the first exercise in manifest order that is not done,
where done means solved, or solved at its last check and edited since (a learner tidying up a
solved exercise is not sent back to it). A check of the edited version records its verdict: a
failing one makes the exercise failing, and "next", again (later exercises may import it).
"""

from __future__ import annotations

import sys

from speckata.cli.pristine import is_committed_stub
from speckata.cli.runner import MISSING, NOT_ATTEMPTED, SOLVED, Verdict, grade
from speckata.cli.state import file_hash
from speckata.manifest import Exercise, load_manifest

CHANGED = "changed since its last check"
UNCHECKED = "not checked yet"
UNGRADED = (CHANGED, UNCHECKED)  # states that only grading can turn into a verdict


def known_state(workspace, exercise: Exercise) -> str:
    """The exercise's state without grading: a verdict state, CHANGED or UNCHECKED."""
    path = workspace.learner_file(exercise)
    if not path.is_file():
        return MISSING
    record = workspace.state.exercise(exercise.id) if workspace.learner_folder else {}
    if record.get("state") and record.get("sha256") == file_hash(path):
        return record["state"]
    if is_committed_stub(workspace.root, exercise, path):
        return NOT_ATTEMPTED
    return CHANGED if record.get("state") else UNCHECKED


def is_done(workspace, exercise: Exercise, state: str) -> bool:
    """Solved, or solved at its last check and edited since (still counted, so "next" moves on)."""
    if state == SOLVED:
        return True
    return state == CHANGED and workspace.state.exercise(exercise.id).get("state") == SOLVED


def next_exercise(workspace, states: dict[str, str] | None = None, skip=()) -> Exercise | None:
    """THE rule for "next": the first exercise in manifest order that is not done.

    ``states`` are states already known (from `all_states`); the others are looked up without
    grading. ``skip`` lists ids solved in this session that the record cannot show (`--target`).
    """
    for exercise in load_manifest():
        if exercise.id in skip:
            continue
        state = (states or {}).get(exercise.id) or known_state(workspace, exercise)
        if not is_done(workspace, exercise, state):
            return exercise
    return None


def announce(workspace, exercise: Exercise) -> None:
    print(workspace.palette.dim(f"Checking {exercise.id} ({workspace.shown(workspace.learner_file(exercise))}) ..."))


def grade_and_record(workspace, exercise: Exercise) -> Verdict:
    verdict = grade(workspace, exercise)
    if workspace.learner_folder and verdict.state != MISSING:
        workspace.state.record_verdict(exercise.id, verdict.state, verdict.sha256)
    return verdict


def all_states(workspace) -> dict[str, str]:
    """Every exercise's state, in manifest order. Grades only with --target (nothing is recorded there)."""
    states = {}
    for exercise in load_manifest():
        state = known_state(workspace, exercise)
        if state in UNGRADED and not workspace.learner_folder:
            print(workspace.palette.dim(f"(grading {exercise.id}: nothing is recorded for --target folders)"),
                  file=sys.stderr)
            state = grade_and_record(workspace, exercise).state
        states[exercise.id] = state
    return states


def next_to_check(workspace, skip=()) -> tuple[Exercise | None, Verdict | None]:
    """The next exercise (by `next_exercise`), graded when its state needs grading to be known.

    A graded exercise is returned even when it turns out solved, so that `kata check` shows the
    learner that verdict (the next call moves on). ``skip`` lists ids already done this session.
    """
    exercise = next_exercise(workspace, skip=skip)
    if exercise is None or known_state(workspace, exercise) not in UNGRADED:
        return exercise, None
    announce(workspace, exercise)
    return exercise, grade_and_record(workspace, exercise)
