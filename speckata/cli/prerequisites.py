"""Prerequisites: earlier exercises whose functions an exercise imports (manifest `requires`).

When exercise 11 fails because 09's `top1_agreement` still raises NotImplementedError, the
learner must be told to solve 09 first, not to fix exercises/ex11_distill_draft.py. A
prerequisite is blamed only when it is not done and the failure names it (its id, as in
"09-distillation-loss: top1_agreement is not written yet", or its file, as in a traceback
line) and its state is not "solved": exercise 10 may reuse 01 or not, and a bug of 10's own
must still be reported as one.
"""

from __future__ import annotations

from speckata.cli.progress import is_done, known_state
from speckata.cli.runner import SOLVED, Verdict
from speckata.manifest import Exercise, exercise_by_id


def prerequisites(exercise: Exercise) -> list[Exercise]:
    return [exercise_by_id(required) for required in exercise.requires]


def unsolved_prerequisites(ws, exercise: Exercise) -> list[tuple[Exercise, str]]:
    """(prerequisite, its state) for each prerequisite that is not done, judged without grading."""
    found = []
    for required in prerequisites(exercise):
        state = known_state(ws, required)
        if not is_done(ws, required, state):
            found.append((required, state))
    return found


def describe(ws, exercise: Exercise) -> str:
    """'uses 09-distillation-loss (solved)', for `kata` and `kata list`; '' when it needs nothing."""
    if not exercise.requires:
        return ""
    parts = [f"{required.id} ({known_state(ws, required)})" for required in prerequisites(exercise)]
    return "uses " + ", ".join(parts)


def verdict_messages(verdict: Verdict) -> str:
    messages = [verdict.problem, (verdict.failure or {}).get("message", "")]
    messages += [test.get("message", "") for test in verdict.not_attempted]
    return "\n".join(message for message in messages if message)


def blamed_prerequisite(ws, verdict: Verdict) -> tuple[Exercise, str, str] | None:
    """(prerequisite, its state, the message line naming it) when the failure lies in an unsolved one."""
    if verdict.state == SOLVED:
        return None
    text = verdict_messages(verdict)
    # Solved-then-edited counts as done for "next", but a failure inside it is still its own.
    suspects = [(required, known_state(ws, required)) for required in prerequisites(verdict.exercise)]
    for required, state in [(r, s) for r, s in suspects if s != SOLVED]:
        for line in text.splitlines():
            if required.id in line or required.module in line:
                return required, state, line.strip()
    return None


def blame_lines(ws, verdict: Verdict, required: Exercise, state: str, evidence: str) -> list[str]:
    exercise, p = verdict.exercise, ws.palette
    number = required.number
    return [
        f"{p.warn('SOLVE ' + number + ' FIRST')}  {p.bold(exercise.id)} uses {required.id}, which is {state}.",
        "",
        f"  The failure is in {number}'s code, not in {ws.shown(ws.learner_file(exercise))}:",
        f"    {evidence}",
        "",
        f"  Solve {number} first: {ws.suggest('check ' + required.id)}",
        f"  Then come back: {ws.suggest('check ' + exercise.id)}",
    ]


def reminder_lines(ws, verdict: Verdict) -> list[str]:
    """A note under an ordinary failing verdict when a prerequisite is unsolved but not named."""
    if verdict.state == SOLVED:
        return []
    pending = unsolved_prerequisites(ws, verdict.exercise)
    if not pending:
        return []
    names = ", ".join(f"{required.id} ({state})" for required, state in pending)
    return [ws.palette.dim(f"Note: {verdict.exercise.id} builds on {names}.")]
