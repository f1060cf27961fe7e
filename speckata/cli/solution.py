"""`kata solution ID`: the reference solution, once the exercise is solved (or with --force)."""

from __future__ import annotations

from speckata.cli import codes
from speckata.cli.check import show_verdict
from speckata.cli.progress import grade_and_record
from speckata.cli.runner import SOLVED
from speckata.cli.workspace import find_exercise


def solved(ws, exercise) -> bool:
    """Solved once before (in the learner's folder), or solved now: grading it settles it."""
    if ws.learner_folder and ws.state.exercise(exercise.id).get("solved_once"):
        return True
    print(ws.palette.dim(f"Checking {exercise.id} first: the solution is shown once it is solved ..."))
    verdict = grade_and_record(ws, exercise)
    if verdict.state == SOLVED:
        return True
    show_verdict(ws, verdict)
    return False


def run(ws, args) -> int:
    exercise = find_exercise(args.id)
    if not args.force and not solved(ws, exercise):
        print()
        print(ws.palette.warn(f"The reference solution of {exercise.id} is shown once you have solved it.")
              + f" (To see it anyway: {ws.palette.command('kata solution ' + exercise.id + ' --force')})")
        return codes.FAILING
    path = ws.root / "solutions" / exercise.file
    print(ws.palette.bold(f"# {ws.shown(path)}: the reference solution of {exercise.id}"))
    print(path.read_text().rstrip())
    return codes.OK
