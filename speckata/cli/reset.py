"""`kata reset ID`: put the pristine stub back, keeping the learner's version as a backup."""

from __future__ import annotations

import time
from pathlib import Path

from speckata.cli import codes
from speckata.cli.pristine import committed_stub
from speckata.cli.runner import NOT_ATTEMPTED
from speckata.cli.state import file_hash
from speckata.cli.workspace import find_exercise


def confirmed(question: str) -> bool:
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:  # no one to ask (stdin closed or piped): do nothing without --yes
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


def backup_path(folder: Path, name: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate, count = folder / f"{name}.{stamp}", 1
    while candidate.exists():
        count += 1
        candidate = folder / f"{name}.{stamp}-{count}"
    return candidate


def run(ws, args) -> int:
    exercise = find_exercise(args.id)
    path = ws.root / "exercises" / exercise.file
    stub = committed_stub(ws.root, exercise)
    if stub is None:
        print(ws.palette.bad("Cannot reset:") + f" no committed version of exercises/{exercise.file} is a stub "
              f"(is {ws.root} a git clone of speckata?)")
        return codes.FAILING
    current = path.read_text(errors="replace") if path.is_file() else None
    if current == stub:
        print(f"{ws.shown(path)} is already the pristine stub; nothing to do.")
        return codes.OK
    keeps = "" if current is None else f" Your version is kept in {ws.shown(ws.state.backups)}/."
    if not args.yes and not confirmed(f"Replace {ws.shown(path)} with the original stub?{keeps}"):
        print("Nothing changed.")
        return codes.FAILING
    if current is not None:
        ws.state.backups.mkdir(parents=True, exist_ok=True)
        backup = backup_path(ws.state.backups, exercise.file)
        backup.write_text(current)
        print(f"Your version is saved as {ws.shown(backup)}")
    path.write_text(stub)
    ws.state.record_verdict(exercise.id, NOT_ATTEMPTED, file_hash(path))
    print(ws.palette.good("Reset:") + f" {ws.shown(path)} is the pristine stub again.")
    return codes.OK
