"""`kata hint [ID]`: one more hint tier per call, from a nudge to nearly the answer."""

from __future__ import annotations

import textwrap

from speckata.cli import codes
from speckata.cli.progress import known_state
from speckata.cli.runner import SOLVED
from speckata.cli.workspace import UsageProblem, find_exercise
from speckata.manifest import load_manifest


def current_exercise(ws):
    """The first exercise not known to be solved (nothing is graded to find it)."""
    exercise = next((e for e in load_manifest() if known_state(ws, e) != SOLVED), None)
    if exercise is None:
        raise UsageProblem("every exercise is solved: name the one you want a hint for (kata hint ID)")
    return exercise


def run(ws, args) -> int:
    exercise = find_exercise(args.id) if args.id else current_exercise(ws)
    tiers = len(exercise.hints)
    tier = min(ws.state.hints_shown(exercise.id) + 1, tiers)
    p = ws.palette
    print(p.bold(f"{exercise.id}: hint {tier} of {tiers}"))
    print()
    print(textwrap.fill(exercise.hints[tier - 1], width=96, initial_indent="  ", subsequent_indent="  "))
    print()
    if tier < tiers:
        print(p.dim(f"Run {'kata hint ' + exercise.id} again for hint {tier + 1} of {tiers}."))
    else:
        print(p.dim(f"That was the last hint. The theory page {exercise.theory} works the rule through step by step."))
    ws.state.update(exercise.id, hints_shown=tier)
    return codes.OK
