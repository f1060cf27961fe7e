"""`kata check [ID]`: grade one exercise and print a verdict written for the learner."""

from __future__ import annotations

from speckata.cli import codes
from speckata.cli.display import verdict_lines
from speckata.cli.prerequisites import blame_lines, blamed_prerequisite, reminder_lines
from speckata.cli.progress import announce, grade_and_record, next_exercise, next_to_check
from speckata.cli.runner import ERROR, NOT_ATTEMPTED, SOLVED, Verdict
from speckata.cli.workspace import find_exercise
from speckata.manifest import Exercise

EXIT_FOR_STATE = {SOLVED: codes.OK, NOT_ATTEMPTED: codes.NOT_ATTEMPTED, ERROR: codes.GRADER_ERROR}


def show_verdict(ws, verdict: Verdict) -> int:
    blamed = blamed_prerequisite(ws, verdict)
    if blamed:  # the failure lies in an earlier exercise this one imports: send the learner there
        print("\n".join(blame_lines(ws, verdict, *blamed)))
        return EXIT_FOR_STATE.get(verdict.state, codes.FAILING)
    following = next_exercise(ws, skip=(verdict.exercise.id,)) if verdict.state == SOLVED else None
    hints_shown = ws.state.hints_shown(verdict.exercise.id)
    print("\n".join(verdict_lines(ws, verdict, following, hints_shown) + reminder_lines(ws, verdict)))
    return EXIT_FOR_STATE.get(verdict.state, codes.FAILING)


def check_exercise(ws, exercise: Exercise) -> int:
    announce(ws, exercise)
    if getattr(ws, "streams", None) is not None:
        print(ws.palette.dim(f"  with fresh streams from seed {ws.streams}: generated cases re-drawn; "
                             "worked examples, edge cases and statistical tests fixed"))
    return show_verdict(ws, grade_and_record(ws, exercise))


def run(ws, args) -> int:
    if getattr(args, "streams", None) is not None:  # a hidden suite: its verdict is not the learner's progress
        ws.streams, ws.learner_folder = args.streams, False
    if args.id:
        return check_exercise(ws, find_exercise(args.id))
    exercise, verdict = next_to_check(ws)
    if exercise is None:
        print(ws.palette.good("Every exercise is solved.") + " Revisit one with " + ws.suggest("check ID") + ".")
        return codes.OK
    if verdict is None:
        return check_exercise(ws, exercise)
    return show_verdict(ws, verdict)
