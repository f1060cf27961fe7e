"""The learner's progress: a git-ignored JSON file, `.speckata/state.json` at the repository root.

Per exercise it keeps the last verdict with a hash of the file it was given (so an unchanged file
need not be graded again), whether it was ever solved (which unlocks `kata solution`), and how
many hint tiers were shown. SPECKATA_STATE_DIR moves the whole folder (the CLI's tests use it).

Every change reloads the file first and replaces it atomically, so `kata watch` in one terminal
and `kata hint` in another do not lose each other's updates.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from speckata.grading.states import SOLVED

STATE_DIR_VARIABLE = "SPECKATA_STATE_DIR"
VERSION = 1


def state_folder(root: Path) -> Path:
    override = os.environ.get(STATE_DIR_VARIABLE)
    return Path(override).expanduser().resolve() if override else root / ".speckata"


def file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class State:
    def __init__(self, folder: Path):
        self.folder = folder
        self.path = folder / "state.json"
        self.backups = folder / "backups"

    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {"version": VERSION, "exercises": {}}
        except (OSError, ValueError):
            # A damaged file must not lock the learner out: keep it aside and start afresh.
            self.path.replace(self.path.with_suffix(f".damaged-{int(time.time())}"))
            return {"version": VERSION, "exercises": {}}
        data.setdefault("exercises", {})
        return data

    def _save(self, data: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(f".tmp-{os.getpid()}")
        partial.write_text(json.dumps(data, indent=1, sort_keys=True))
        os.replace(partial, self.path)

    def exercise(self, exercise_id: str) -> dict:
        return dict(self._load()["exercises"].get(exercise_id, {}))

    def update(self, exercise_id: str, **changes) -> None:
        data = self._load()
        entry = data["exercises"].setdefault(exercise_id, {})
        entry.update(changes)
        self._save(data)

    def record_verdict(self, exercise_id: str, state: str, sha256: str | None) -> None:
        changes = {"state": state, "sha256": sha256, "checked": time.strftime("%Y-%m-%dT%H:%M:%S")}
        if state == SOLVED:
            changes["solved_once"] = True
        self.update(exercise_id, **changes)

    def hints_shown(self, exercise_id: str) -> int:
        return int(self.exercise(exercise_id).get("hints_shown", 0))
