"""`kata` (no arguments) and `kata list`: progress, the next exercise, every exercise's state.

Both are instant in the learner's folder: an edited file shows as "changed since its last check"
and is graded by `kata check`, never here (see speckata/cli/progress.py).
"""

from __future__ import annotations

from speckata.cli import codes, progress_table
from speckata.cli.display import exercise_card, progress_bar
from speckata.cli.prerequisites import describe
from speckata.cli.progress import UNGRADED, all_states, is_done, next_exercise
from speckata.cli.runner import SOLVED
from speckata.manifest import load_manifest


def headline(ws, states: dict[str, str]) -> str:
    solved = sum(is_done(ws, exercise, states[exercise.id]) for exercise in load_manifest())  # as "next" counts
    folder = "" if ws.learner_folder else f"  (grading {ws.shown(ws.target)}/)"
    return f"speckata: {solved} of {len(states)} exercises solved  {progress_bar(solved, len(states))}{folder}"


def status(ws, args) -> int:
    if getattr(args, "markdown", False):  # `kata status --markdown`: the table for a job summary
        return progress_table.print_markdown(ws, args)
    states = all_states(ws)
    print(ws.palette.bold(headline(ws, states)))
    print()
    following = next_exercise(ws, states)
    if following is None:
        print(ws.palette.good("Every exercise is solved.") + f" Compare with the references: {ws.suggest('solution ID')}")
        return codes.OK
    card = exercise_card(ws, following, states[following.id])
    if ws.learner_folder and states[following.id] != SOLVED and ws.state.exercise(following.id).get("solved_once"):
        # solved once, then edited and checked again: the last check is what counts (README, "The kata command")
        card[1] += f"  (solved before; the version checked last fails: {ws.suggest('check ' + following.id)})"
    if following.requires:  # right under the state line: what must work before this one can
        card.insert(2, f"  {'uses:':<10} {describe(ws, following).removeprefix('uses ')}")
    print("Next: " + "\n".join(card))
    return codes.OK


def list_exercises(ws, args) -> int:
    states = all_states(ws)
    following = next_exercise(ws, states)
    print(ws.palette.bold(headline(ws, states)))
    print()
    width = max(len(e.id) for e in load_manifest())
    state_width = max(14, *(len(state) for state in states.values()))
    print(ws.palette.dim(f"    {'state':<{state_width}} {'id':<{width}}  {'difficulty':<10}  title"))
    for exercise in load_manifest():
        state = states[exercise.id]
        marker = "->" if following is not None and exercise.id == following.id else "  "
        needs = f"  ({prerequisite_numbers(exercise)})" if exercise.requires else ""
        print(f"{marker}  {ws.palette.state(f'{state:<{state_width}}', state)} {exercise.id:<{width}}  "
              f"{exercise.difficulty:<10}  {exercise.title}{ws.palette.dim(needs)}")
    if any(state in UNGRADED for state in states.values()):
        print()
        print(ws.palette.dim(f"An edited exercise is graded by {ws.suggest('check ID')}; listing never grades."))
    return codes.OK


def prerequisite_numbers(exercise) -> str:
    return "uses " + ", ".join(required.split("-", 1)[0] for required in exercise.requires)
