"""`kata watch [ID]`: re-check the current exercise whenever its file is saved.

Changes are found by polling the file's modification time and size (standard library only, so
it works the same on network drives, WSL and containers, where change events often do not
arrive). Without an ID, a solved exercise hands over to the next one, as in rustlings. Each
re-check runs in a child forked from this process, which keeps pytest, numpy and torch loaded
(cli/warm_grader.py), so a save is graded without the start-up of a fresh interpreter.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

from speckata.cli import codes, warm_grader
from speckata.cli.check import check_exercise, show_verdict
from speckata.cli.progress import next_to_check
from speckata.cli.workspace import find_exercise

SETTLE_SECONDS = 0.1  # editors often write a file in several steps: let it settle before grading


def signature(path: Path):
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def wait_for_change(path: Path, seen, interval: float) -> None:
    while True:
        time.sleep(interval)
        now = signature(path)
        if now is not None and now != seen:
            time.sleep(SETTLE_SECONDS)
            return


def run(ws, args) -> int:
    fixed = find_exercise(args.id) if args.id else None
    exercise, verdict = (fixed, None) if fixed else next_to_check(ws)
    p = ws.palette
    done: set[str] = set()  # solved this session (with --target nothing is recorded to say so)
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
            wait_for_change(path, seen, args.poll)
            print(p.dim(f"--- {time.strftime('%H:%M:%S')} {ws.shown(path)} changed " + "-" * 40))
        print(p.good("Every exercise is solved.") + " Nothing left to watch.")
        return codes.OK
    except KeyboardInterrupt:
        print()
        print("Stopped watching.")
        return codes.OK
