"""`kata watch [ID]`: re-check the current exercise whenever its file is saved.

Changes are found by polling the file's modification time and size (standard library only, so
it works the same on network drives, WSL and containers, where change events often do not
arrive). A changed file is graded once it has stopped changing and parses: an editor's half-written
save is never graded, and a save that does not parse is named and the next one waited for. Without an ID, a solved exercise hands over to the next one, as in rustlings. Each
re-check runs in a child forked from this process, which keeps pytest, numpy and torch loaded
(cli/warm_grader.py), so a save is graded without the start-up of a fresh interpreter.
"""

from __future__ import annotations

import ast
import functools
import signal
import time
from pathlib import Path

from speckata.cli import codes, warm_grader
from speckata.cli.check import check_exercise, show_verdict
from speckata.cli.progress import next_to_check
from speckata.cli.workspace import find_exercise

SETTLE_SECONDS = 0.1  # editors often write a file in several steps: it must stay the same this long


def signature(path: Path):
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def contents(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def parse_problem(text: bytes) -> str:
    """Why ``text`` is not a whole Python file yet ('' when it is one): empty, or a SyntaxError."""
    if not text.strip():
        return "it is empty"
    try:
        ast.parse(text)
    except (SyntaxError, ValueError) as error:
        return f"line {getattr(error, 'lineno', '?')}: {getattr(error, 'msg', error)}"
    return ""


def wait_for_change(path: Path, seen, interval: float, say=print) -> None:
    """Until the file has changed, stopped changing, and parses: a half-saved file is never graded.
    A saved file that does not parse is named (``say``) and the next save is waited for."""
    refused = None
    while True:
        time.sleep(interval)
        now = signature(path)
        if now is None or now == seen:
            continue
        text = contents(path)
        time.sleep(SETTLE_SECONDS)
        while text != (later := contents(path)) or signature(path) != now:
            text, now = later, signature(path)
            time.sleep(SETTLE_SECONDS)
        seen = now
        problem = parse_problem(text) if text is not None else "it cannot be read"
        if not problem:
            return
        if text != refused:
            say(f"Not graded yet: {path.name} does not parse ({problem}); waiting for the next save.")
            refused = text


def run(ws, args) -> int:
    fixed = find_exercise(args.id) if args.id else None
    exercise, verdict = (fixed, None) if fixed else next_to_check(ws)
    p = ws.palette
    done: set[str] = set()  # solved this session (with --target nothing is recorded to say so)
    # Ctrl-C is how a watch ends, even when it was started with SIGINT ignored (a shell script's
    # background job inherits that, and Python then leaves Ctrl-C without effect).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if warm_grader.available():  # re-checks fork from this process instead of starting pytest afresh
        ws.suite_runner = functools.partial(warm_grader.run_suite_warm, reuse_collection=True)
    try:
        while exercise is not None:
            path = ws.learner_file(exercise)
            if warm_grader.available():
                warm_grader.warm_up(ws.root / exercise.tests)
            seen = signature(path)  # taken before grading, so a save during grading is not missed
            code = show_verdict(ws, verdict) if verdict else check_exercise(ws, exercise)
            verdict = None
            if code == codes.OK and fixed is None:
                done.add(exercise.id)
                exercise, verdict = next_to_check(ws, skip=done)
                print()
                continue
            print()
            print(p.dim(f"Watching {ws.shown(path)}: checked again on every save "
                        f"(polling every {args.poll:g} s). Ctrl-C to stop."))
            wait_for_change(path, seen, args.poll, say=lambda line: print(p.dim(line)))
            print(p.dim(f"--- {time.strftime('%H:%M:%S')} {ws.shown(path)} changed " + "-" * 40))
        print(p.good("Every exercise is solved.") + " Nothing left to watch.")
        return codes.OK
    except KeyboardInterrupt:
        print()
        print("Stopped watching.")
        return codes.OK
