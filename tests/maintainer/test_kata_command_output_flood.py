"""A correct solution that floods its output is graded in bounded memory and time, and a failure names the flood.

tests/kata_samples/output_flood/ prints 5 MB on every call. Before, pytest's capture held all of it:
at a 10 s test limit the grading process grew to 3.3 GB in 37 s and the verdict read "stopped after
10 s: your code did not return ... and it caught every attempt to stop it" (the report that came in:
200 MB per call, 119 s, 5.4 GB, "an endless loop"). Now the first 64 KB of a test's output is kept
and the rest only counted, whether it goes through print or straight to the file descriptor.
Memory is measured (the largest process's peak), never time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from speckata.manifest import repo_root

ROOT = repo_root()
SAMPLE = ROOT / "tests" / "kata_samples" / "output_flood" / "ex01_speculative_step.py"
BOUND_KB = 1024 * 1024  # 1 GiB: the grading process of exercise 01 needs about a tenth of it


def kata_check_with_peak_memory(target, tmp_path) -> tuple[subprocess.CompletedProcess, int]:
    """`kata check 01 --target TARGET` in a process of its own, which reports the largest peak (kB) of all it ran."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment["SPECKATA_STATE_DIR"] = str(tmp_path / "state")
    script = (
        "import json, resource, subprocess, sys\n"
        "run = subprocess.run([sys.executable, '-m', 'speckata.cli', 'check', '01', sys.argv[1]], "
        "stdin=subprocess.DEVNULL, capture_output=True, text=True)\n"
        "print(json.dumps([run.returncode, run.stdout, run.stderr, "
        "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))\n"
    )
    wrapper = subprocess.run([sys.executable, "-c", script, f"--target={target}"], cwd=ROOT, env=environment,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    code, stdout, stderr, peak = json.loads(wrapper.stdout)
    return subprocess.CompletedProcess([], code, stdout, stderr), peak


def test_a_correct_solution_that_prints_5_mb_per_call_is_solved_in_bounded_memory(tmp_path):
    run, peak = kata_check_with_peak_memory(SAMPLE.parent, tmp_path)
    assert run.returncode == 0 and "SOLVED  01-speculative-step: all 32 tests pass." in run.stdout, run.stdout
    assert peak < BOUND_KB, f"the grading peaked at {peak / 1024:.0f} MB"
    assert len(run.stdout) < 10_000, "the flood reached the verdict"


def test_a_flood_written_to_the_file_descriptor_is_cut_as_well(tmp_path):
    folder = tmp_path / "fd_flood"
    folder.mkdir()
    source = SAMPLE.read_text().replace("    print(FLOOD)\n", "    os.write(1, FLOOD[:500_000].encode())\n")
    (folder / SAMPLE.name).write_text("import os\n" + source)
    run, peak = kata_check_with_peak_memory(folder, tmp_path)
    assert peak < BOUND_KB, f"the grading peaked at {peak / 1024:.0f} MB"
    # Writing to a file costs the disk's time: solved on a fast disk, stopped at the test limit on a
    # slow one, and then the verdict names the flood. Either way, nothing leaks into the verdict.
    solved = run.returncode == 0 and "SOLVED" in run.stdout
    named = run.returncode == 1 and "MB in this test (only the first 64 KB" in run.stdout
    assert (solved or named) and len(run.stdout) < 10_000, run.stdout[:3000]


def test_a_failure_names_the_flood(tmp_path):
    folder = tmp_path / "failing_flood"
    folder.mkdir()
    failing = (ROOT / "tests" / "kata_samples" / "failing" / SAMPLE.name).read_text()
    (folder / SAMPLE.name).write_text(failing.replace(
        "    tokens = []\n", "    print('x' * 5_000_000)\n    tokens = []\n", 1))
    run, _ = kata_check_with_peak_memory(folder, tmp_path)
    assert run.returncode == 1 and "FAILING" in run.stdout, run.stdout
    assert "note: your code printed" in run.stdout and "MB in this test (only the first 64 KB" in run.stdout, run.stdout
