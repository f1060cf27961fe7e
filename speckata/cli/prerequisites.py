"""Prerequisites: earlier exercises whose functions an exercise imports (manifest `requires`).

When exercise 11 fails because 09's `top1_agreement` still raises NotImplementedError, the
learner must be told to solve 09 first, not to fix exercises/ex11_distill_draft.py. A
prerequisite is blamed only when it is not done and the failure names it (its id, as in
"09-distillation-loss: top1_agreement is not written yet", or its file, as in a traceback
line) and its own suite fails (graded now if it changed since its last check): exercise 10 may
reuse 01 or not, and a bug of 10's own must still be reported as one, even when it shows up as
01 refusing what 10 handed it.
"""

from __future__ import annotations

from speckata.cli.progress import CHANGED, UNCHECKED, is_done, known_state
from speckata.cli.runner import SOLVED, Verdict, grade
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
    """(prerequisite, its state, the message line naming it) when the failure lies in an unsolved one.

    A prerequisite named in the failure is blamed only when its own suite fails: a line of its file
    in the traceback may be it rightly refusing what this exercise handed it (exercise 18 raising on
    the empty tree a broken exercise 20 built). Its state as last checked decides when the file is
    unchanged since; otherwise (edited since, or never checked) its suite is graded now.
    """
    if verdict.state == SOLVED:
        return None
    text = verdict_messages(verdict)
    for required in prerequisites(verdict.exercise):
        evidence = next((line.strip() for line in text.splitlines() if required.id in line or required.module in line),
                        None)
        if evidence is None:
            continue
        state = known_state(ws, required)
        if state in (CHANGED, UNCHECKED):
            state = grade(ws, required).state  # not recorded: the learner asked about this exercise
        if state != SOLVED:
            return required, state, evidence
        cleared(ws)[required.id] = evidence
    return None


def cleared(ws) -> dict[str, str]:
    """Prerequisites named in this failure whose own suites pass: id -> the line that named them."""
    if not hasattr(ws, "cleared_prerequisites"):
        ws.cleared_prerequisites = {}
    return ws.cleared_prerequisites


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
    passed = cleared(ws)
    lines = [ws.palette.dim(f"Note: {required} passes its own suite, so the line of its code above is it refusing "
                            f"what {verdict.exercise.id} handed it: the bug is in {verdict.exercise.id}.")
             for required in passed]
    pending = [(r, s) for r, s in unsolved_prerequisites(ws, verdict.exercise) if r.id not in passed]
    if pending:
        names = ", ".join(f"{required.id} ({state})" for required, state in pending)
        lines.append(ws.palette.dim(f"Note: {verdict.exercise.id} builds on {names}."))
    return lines
