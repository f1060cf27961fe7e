"""`kata watch` grades a save only once the file has stopped changing and parses.

An editor that writes a file in steps leaves it half-written for a moment; the watch used to grade
whatever it found 0.1 s after the change, so a half-saved file could come back "FAILING ... does not
parse". Now a save that does not parse is named ("Not graded yet") and the next save is waited for.
The test leaves the half-written file in place until that line appears, so it does not depend on
the machine's speed.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time

from speckata.manifest import repo_root
from tests.maintainer.test_kata_cli import EXERCISE, FILE, SAMPLES, read_until

ROOT = repo_root()


def save(path, text: str, stamp: float) -> None:
    path.write_text(text)
    os.utime(path, (stamp, stamp))  # a new modification time even on coarse-grained file systems


def test_watch_does_not_grade_a_half_saved_file(tmp_path):
    folder = tmp_path / "learner"
    folder.mkdir()
    learner_file = folder / FILE
    shutil.copy(SAMPLES / "failing" / FILE, learner_file)
    solved = (SAMPLES / "solved" / FILE).read_text()
    half = solved[: solved.index("for i, x in enumerate(draft):") + len("for i, x in enu")]
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment["SPECKATA_STATE_DIR"] = str(tmp_path / "state")
    watcher = subprocess.Popen(
        [sys.executable, "-m", "speckata.cli", "watch", EXERCISE, f"--target={folder}", "--poll=0.2"],
        cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()
    seen: list[str] = []
    try:
        read_until(lines, "FAILING", seen)
        read_until(lines, "Watching", seen)
        start = len(seen)
        save(learner_file, half, time.time() + 2)
        read_until(lines, f"Not graded yet: {FILE} does not parse (line", seen)
        save(learner_file, solved, time.time() + 4)
        read_until(lines, "SOLVED", seen)
        after_the_half_save = "".join(seen[start:])
        assert "FAILING" not in after_the_half_save and "SyntaxError" not in after_the_half_save, after_the_half_save
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=120) == 0
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()


def test_ctrl_c_ends_a_watch_started_with_sigint_ignored(tmp_path):
    """A shell script's background job starts with SIGINT ignored, and Python keeps it so: the
    watch must still end on Ctrl-C (it did not, and hung until killed)."""
    folder = tmp_path / "learner"
    folder.mkdir()
    shutil.copy(SAMPLES / "failing" / FILE, folder / FILE)
    environment = {**os.environ, "SPECKATA_STATE_DIR": str(tmp_path / "state")}
    watcher = subprocess.Popen(
        [sys.executable, "-m", "speckata.cli", "watch", EXERCISE, f"--target={folder}", "--poll=0.2"],
        cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()
    seen: list[str] = []
    try:
        read_until(lines, "Watching", seen)
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=120) == 0
        read_until(lines, "Stopped watching", seen)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
