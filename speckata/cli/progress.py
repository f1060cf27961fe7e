"""What state each exercise is in, grading only what must be graded.

An exercise's state is known without running anything when its file is missing, unchanged since
the last recorded verdict (learner's folder only), or identical to the committed stub. Otherwise
it is graded (one pytest subprocess per exercise), and in the learner's folder the verdict is
recorded.
"""

from __future__ import annotations

import sys

from speckata.cli.pristine import committed_stub
from speckata.cli.runner import MISSING, NOT_ATTEMPTED, SOLVED, Verdict, grade
from speckata.cli.state import file_hash
from speckata.manifest import Exercise, load_manifest


def known_state(workspace, exercise: Exercise) -> str | None:
    path = workspace.learner_file(exercise)
    if not path.is_file():
        return MISSING
    if workspace.learner_folder:
        record = workspace.state.exercise(exercise.id)
        if record.get("state") and record.get("sha256") == file_hash(path):
            return record["state"]
    stub = committed_stub(workspace.root, exercise)
    if stub is not None and path.read_text(errors="replace") == stub:
        return NOT_ATTEMPTED
    return None


def announce(workspace, exercise: Exercise) -> None:
    print(workspace.palette.dim(f"Checking {exercise.id} ({workspace.shown(workspace.learner_file(exercise))}) ..."))


def grade_and_record(workspace, exercise: Exercise) -> Verdict:
    verdict = grade(workspace, exercise)
    if workspace.learner_folder and verdict.state != MISSING:
        workspace.state.record_verdict(exercise.id, verdict.state, verdict.sha256)
    return verdict


def all_states(workspace) -> dict[str, str]:
    """Every exercise's state, in manifest order, grading those not known."""
    states = {}
    for exercise in load_manifest():
        state = known_state(workspace, exercise)
        if state is None:
            why = "changed since its last check" if workspace.state.exercise(exercise.id) else "not checked yet"
            print(workspace.palette.dim(f"(grading {exercise.id}: {why})"), file=sys.stderr)
            state = grade_and_record(workspace, exercise).state
        states[exercise.id] = state
    return states


def next_exercise(states: dict[str, str]) -> Exercise | None:
    return next((e for e in load_manifest() if states.get(e.id) != SOLVED), None)


def next_to_check(workspace, skip=()) -> tuple[Exercise | None, Verdict | None]:
    """The first exercise not known to be solved, with its verdict when finding it meant grading it.

    A graded exercise is returned even when it turns out solved, so that `kata check` shows the
    learner that verdict (the next call moves on). ``skip`` lists ids already done this session.
    """
    for exercise in load_manifest():
        if exercise.id in skip:
            continue
        state = known_state(workspace, exercise)
        if state == SOLVED:
            continue
        if state is not None:
            return exercise, None
        announce(workspace, exercise)
        return exercise, grade_and_record(workspace, exercise)
    return None, None


def next_after(workspace, exercise: Exercise) -> Exercise | None:
    """The next exercise to do after ``exercise`` is solved, judged without grading anything."""
    exercises = load_manifest()
    start = exercises.index(exercise)
    for candidate in exercises[start + 1:] + exercises[:start]:
        if known_state(workspace, candidate) != SOLVED:
            return candidate
    return None
