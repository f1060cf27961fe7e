"""`kata` into a pipe whose reader leaves early (`kata solution 02 | head -1`, `kata check 18 | head -2`).

The reader is gone before the command writes its first line (the pipe's read end is closed before
the command starts), so every write meets a broken pipe, whatever the machine's speed: the command
must end quietly, with the exit code of what it did.
"""

from __future__ import annotations

import os
import subprocess
import sys

from speckata.manifest import repo_root

ROOT = repo_root()


def kata_into_a_closed_pipe(*args: str, tmp_path) -> subprocess.CompletedProcess:
    read_end, write_end = os.pipe()
    os.close(read_end)  # `head` has already read its lines and left
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment["SPECKATA_STATE_DIR"] = str(tmp_path / "state")
    try:
        return subprocess.run([sys.executable, "-m", "speckata.cli", *args], cwd=ROOT, env=environment,
                              stdin=subprocess.DEVNULL, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              timeout=300)
    finally:
        os.close(write_end)


def test_solution_into_a_pipe_whose_reader_left_ends_quietly(tmp_path):
    run = kata_into_a_closed_pipe("solution", "02", "--force", tmp_path=tmp_path)
    assert run.returncode == 0 and run.stderr == "", f"exit {run.returncode}\n{run.stderr}"


def test_check_into_a_pipe_whose_reader_left_still_exits_with_its_verdict(tmp_path):
    run = kata_into_a_closed_pipe("check", "01", "--target=tests/kata_samples/failing", tmp_path=tmp_path)
    assert run.returncode == 1 and run.stderr == "", f"exit {run.returncode}\n{run.stderr}"
