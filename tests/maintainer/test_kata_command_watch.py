"""`kata watch` rechecks the file on each save and ends cleanly on Ctrl-C; it grades a save only once
the file has stopped changing and parses.

An editor that writes a file in steps leaves it half-written for a moment; the watch used to grade
whatever it found 0.1 s after the change, so a half-saved file could come back "FAILING ... does not
parse". Now a save that does not parse is named ("Not graded yet") and the next save is waited for.
The test leaves the half-written file in place until that line appears, so it does not depend on
the machine's speed.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from speckata.manifest import repo_root
from tests.maintainer.test_kata_cli import EXERCISE, FILE, SAMPLES

ROOT = repo_root()


def failing_learner(tmp_path) -> Path:
    """A learner folder holding exercise 01's failing sample: the file `kata watch` watches."""
    folder = tmp_path / "learner"
    folder.mkdir()
    shutil.copy(SAMPLES / "failing" / FILE, folder / FILE)
    return folder / FILE


@contextlib.contextmanager
def watching(learner_file: Path, environment: dict, **popen):
    """`kata watch` of exercise 01 on the learner file's folder, polling every 0.2 s: yields the
    process and a queue its output lines arrive on; kills it on the way out if it still runs."""
    watcher = subprocess.Popen(
        [sys.executable, "-m", "speckata.cli", "watch", EXERCISE, f"--target={learner_file.parent}", "--poll=0.2"],
        cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        **popen,
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()
    try:
        yield watcher, lines
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()


def read_until(lines: queue.Queue, phrase: str, seen: list[str], seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        seen.append(line)
        if phrase in line:
            return
    raise AssertionError(f"{phrase!r} not printed within {seconds} s:\n" + "".join(seen))


def no_colour_environment(state_dir: Path) -> dict:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment["SPECKATA_STATE_DIR"] = str(state_dir)
    return environment


def save(path, text: str, stamp: float) -> None:
    path.write_text(text)
    os.utime(path, (stamp, stamp))  # a new modification time even on coarse-grained file systems


def test_watch_rechecks_when_the_file_is_saved_and_ctrl_c_exits_cleanly(tmp_path):
    learner_file = failing_learner(tmp_path)
    seen: list[str] = []
    with watching(learner_file, no_colour_environment(tmp_path / "state")) as (watcher, lines):
        read_until(lines, "FAILING", seen)
        read_until(lines, "Watching", seen)
        save(learner_file, (SAMPLES / "solved" / FILE).read_text(), time.time() + 2)
        read_until(lines, "changed", seen)
        read_until(lines, "SOLVED", seen)
        read_until(lines, "Watching", seen)
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=120) == 0
    time.sleep(0.2)
    while not lines.empty():
        seen.append(lines.get())
    output = "".join(seen)
    assert "Stopped watching." in output and "Traceback" not in output, output


def test_watch_does_not_grade_a_half_saved_file(tmp_path):
    learner_file = failing_learner(tmp_path)
    solved = (SAMPLES / "solved" / FILE).read_text()
    half = solved[: solved.index("for i, x in enumerate(draft):") + len("for i, x in enu")]
    seen: list[str] = []
    with watching(learner_file, no_colour_environment(tmp_path / "state")) as (watcher, lines):
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


def test_ctrl_c_ends_a_watch_started_with_sigint_ignored(tmp_path):
    """A shell script's background job starts with SIGINT ignored, and Python keeps it so: the
    watch must still end on Ctrl-C (it did not, and hung until killed)."""
    environment = {**os.environ, "SPECKATA_STATE_DIR": str(tmp_path / "state")}
    seen: list[str] = []
    with watching(failing_learner(tmp_path), environment,
                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) as (watcher, lines):
        read_until(lines, "Watching", seen)
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=120) == 0
        read_until(lines, "Stopped watching", seen)
