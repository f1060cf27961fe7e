"""How verdicts, progress and exercises look on the screen (colours come from the workspace's palette)."""

from __future__ import annotations

from speckata.cli.runner import ERROR, MISSING, NOT_ATTEMPTED, SOLVED, Verdict
from speckata.manifest import Exercise

LONGEST_MESSAGE = 80  # lines; longer ones (a pytest traceback, not a grading message) are cut


def progress_bar(solved: int, total: int, width: int = 30) -> str:
    filled = round(width * solved / total) if total else 0
    return "[" + "#" * filled + "." * (width - filled) + "]"


def exercise_card(ws, exercise: Exercise, state: str) -> list[str]:
    p = ws.palette
    return [
        f"{p.bold(exercise.id)}  {exercise.title}  ({exercise.difficulty}, {exercise.track})",
        f"  state:     {p.state(state, state)}",
        f"  edit:      {ws.shown(ws.learner_file(exercise))}",
        f"  theory:    {exercise.theory}",
        f"  notebook:  {exercise.notebook}",
        f"  check it:  {ws.suggest('check ' + exercise.id)}   (or re-check on every save: {ws.suggest('watch')})",
        f"  stuck?     {p.command('kata hint ' + exercise.id)}",
    ]


def marked_line(detail) -> int | None:
    """The message line that marks the first difference, from the failure's structured result
    (GradingFailure.detail, written by speckata.grading.failure_report), never from the text."""
    line = detail.get("marked_line") if isinstance(detail, dict) else None
    return line if type(line) is int and line >= 0 else None


def grading_message(ws, message: str, detail: dict | None = None) -> list[str]:
    """The GradingFailure message as the grader wrote it, with the first difference highlighted."""
    p = ws.palette
    lines = [line.rstrip() for line in message.rstrip().split("\n")]
    origin = list(range(len(lines)))  # each shown line's index in the message (None: the cut note)
    if len(lines) > LONGEST_MESSAGE:
        cut = len(lines) - LONGEST_MESSAGE
        lines, origin = [f"... ({cut} lines cut)"] + lines[cut:], [None] + origin[cut:]
    marked = marked_line(detail)
    shown = []
    for index, line in enumerate(lines):
        if marked is not None and origin[index] == marked:
            line = p.paint(line, "bold", "yellow")
        elif index == 0:
            line = p.bold(line)
        shown.append(line)
    return shown


def test_name(nodeid: str) -> str:
    return nodeid.split("::", 1)[-1]


def verdict_lines(ws, verdict: Verdict, next_exercise: Exercise | None, hints_shown: int) -> list[str]:
    exercise, p = verdict.exercise, ws.palette
    edit = ws.shown(ws.learner_file(exercise))
    again = ws.suggest(f"check {exercise.id}")
    hint = f"{p.command('kata hint ' + exercise.id)} (hint {min(hints_shown + 1, len(exercise.hints))} of {len(exercise.hints)})"
    if verdict.state == SOLVED:
        lines = [f"{p.good('SOLVED')}  {p.bold(exercise.id)}: all {verdict.total} tests pass" + (f" ({verdict.skipped} skipped here by the grader: no GPU)." if verdict.skipped else "."), "",
                 f"  What it teaches: {exercise.teaches}", "",
                 f"  Compare with the reference: {p.command('kata solution ' + exercise.id)}"]
        if next_exercise is None:
            lines.append(f"  {p.good('Every exercise is solved.')}")
        else:
            lines += [f"  Next: {p.bold(next_exercise.id)}  {next_exercise.title} ({next_exercise.difficulty})",
                      f"        edit {ws.shown(ws.learner_file(next_exercise))}, then: {ws.suggest('check ' + next_exercise.id)}"]
        return lines
    if verdict.state == NOT_ATTEMPTED:
        first = verdict.not_attempted[0]["message"].removeprefix("not attempted: ") if verdict.not_attempted else ""
        return [f"{p.warn('NOT ATTEMPTED')}  {p.bold(exercise.id)}  {exercise.title}",
                f"  {first}".rstrip(), "",
                f"  Write it in {edit} (the exercise text is its docstring).",
                f"  Read first: {exercise.theory} and the notebook {exercise.notebook}.",
                f"  Then: {again}"]
    if verdict.state == MISSING:
        return [f"{p.warn('MISSING')}  {p.bold(exercise.id)}: {verdict.problem}.",
                f"  Restore the stub with {p.command('kata reset ' + exercise.id)}."]
    if verdict.state == ERROR:
        return [f"{p.paint('GRADER ERROR', 'bold', 'magenta')}  {p.bold(exercise.id)}: {verdict.problem}",
                "", "  This is a problem with the grading run, not necessarily with your code."]
    return failing_lines(ws, verdict, edit, again, hint)


def failing_lines(ws, verdict: Verdict, edit: str, again: str, hint: str) -> list[str]:
    exercise, p = verdict.exercise, ws.palette
    if verdict.problem:  # stopped by the overall time limit
        body, where = [p.bold(verdict.problem)], ""
    elif verdict.failure:
        before = f" ({verdict.passed} passed before it)" if verdict.passed else ""
        headline = (verdict.failure.get("detail") or {}).get("problem")  # a file that does not parse: no test ran
        task = f"Task {verdict.failure['task']} of {verdict.failure['tasks']}, " if verdict.failure.get("task") else ""
        where = f": {headline}" if headline else f": {task}{test_name(verdict.failure['nodeid'])}{before}"
        body = grading_message(ws, verdict.failure["message"], verdict.failure.get("detail"))
    else:  # partly written: some tests pass, others still raise NotImplementedError
        where = f": partly written ({verdict.passed} of {verdict.total} tests pass)"
        names = ", ".join(test_name(t["nodeid"]) for t in verdict.not_attempted[:5])
        more = f" and {len(verdict.not_attempted) - 5} more" if len(verdict.not_attempted) > 5 else ""
        body = [f"These tests still meet NotImplementedError: {names}{more}",
                verdict.not_attempted[0]["message"] if verdict.not_attempted else ""]
    return [f"{p.bad('FAILING')}  {p.bold(exercise.id)}{where}", "", *body, "",
            f"Fix {edit}, then check again: {again}", f"Stuck? {hint}"]
