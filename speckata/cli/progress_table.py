"""`kata status --markdown`: the progress table as Markdown, for a job summary or a README.

A learner's fork grades itself on every push (.github/workflows/grade.yml): one pytest run writes
its report file (`pytest --report-json=PATH`), and `kata status --markdown --report PATH` turns the
states in it into this table, which the workflow appends to `$GITHUB_STEP_SUMMARY`. Without
`--report` the states are the ones `kata` itself shows (recorded verdicts; nothing is graded).
Plain text only: no colour codes, whatever the terminal.
"""

from __future__ import annotations

import json
from pathlib import Path

from speckata.cli import codes
from speckata.cli.progress import all_states, next_exercise
from speckata.cli.workspace import UsageProblem
from speckata.grading.states import FAILING, NOT_ATTEMPTED, SOLVED
from speckata.manifest import load_manifest

MARKS = {SOLVED: "✅", FAILING: "❌", NOT_ATTEMPTED: "⬜"}  # anything else (not run, changed, ...): ❔


def states_from_report(path: str) -> dict[str, str]:
    """Each exercise's state as a grading run recorded it; one the run did not grade is "not run"."""
    try:
        recorded = json.loads(Path(path).read_text())["states"]
    except (OSError, ValueError, KeyError, TypeError) as problem:
        raise UsageProblem(f"--report {path}: not a grading report written by pytest --report-json ({problem})")
    return {exercise.id: recorded.get(exercise.id, "not run") for exercise in load_manifest()}


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(ws, states: dict[str, str]) -> list[str]:
    solved = sum(state == SOLVED for state in states.values())
    lines = [f"### speckata: {solved} of {len(states)} exercises solved", "",
             "| | exercise | state | difficulty | track |", "|---|---|---|---|---|"]
    for exercise in load_manifest():
        state = states[exercise.id]
        lines.append(f"| {MARKS.get(state, '❔')} | `{exercise.id}` {cell(exercise.title)} | {state} | "
                     f"{exercise.difficulty} | {exercise.track} |")
    following = next_exercise(ws, states)
    lines.append("")
    if following is None:
        lines.append("Every exercise is solved.")
    else:
        lines.append(f"**Next:** `{following.id}`: edit `{ws.shown(ws.learner_file(following))}`, "
                     f"then `kata check {following.id}`")
    return lines


def print_markdown(ws, args) -> int:
    states = states_from_report(args.report) if args.report else all_states(ws)
    print("\n".join(markdown_table(ws, states)))
    return codes.OK
