"""`kata` (no arguments) and `kata list`: progress, the next exercise, every exercise's state."""

from __future__ import annotations

from speckata.cli import codes
from speckata.cli.display import exercise_card, progress_bar
from speckata.cli.progress import all_states, next_exercise
from speckata.cli.runner import SOLVED
from speckata.manifest import load_manifest


def headline(ws, states: dict[str, str]) -> str:
    solved = sum(state == SOLVED for state in states.values())
    folder = "" if ws.learner_folder else f"  (grading {ws.shown(ws.target)}/)"
    return f"speckata: {solved} of {len(states)} exercises solved  {progress_bar(solved, len(states))}{folder}"


def status(ws, args) -> int:
    states = all_states(ws)
    print(ws.palette.bold(headline(ws, states)))
    print()
    following = next_exercise(states)
    if following is None:
        print(ws.palette.good("Every exercise is solved.") + f" Compare with the references: {ws.suggest('solution ID')}")
        return codes.OK
    print("Next: " + "\n".join(exercise_card(ws, following, states[following.id])))
    return codes.OK


def list_exercises(ws, args) -> int:
    states = all_states(ws)
    following = next_exercise(states)
    print(ws.palette.bold(headline(ws, states)))
    print()
    width = max(len(e.id) for e in load_manifest())
    print(ws.palette.dim(f"    {'state':<14} {'id':<{width}}  {'difficulty':<10}  title"))
    for exercise in load_manifest():
        state = states[exercise.id]
        marker = "->" if following is not None and exercise.id == following.id else "  "
        print(f"{marker}  {ws.palette.state(f'{state:<14}', state)} {exercise.id:<{width}}  "
              f"{exercise.difficulty:<10}  {exercise.title}")
    return codes.OK
