"""The `kata` command, run for real in subprocesses against sample learner folders.

The samples in tests/kata_samples/ are graded through `--target`; commands that write (reset, the
solved state that unlocks `kata solution`) run in a throwaway git repository holding exercise 01
only, so neither the real exercises/ nor the other exercises being written are touched. Progress
goes to a temporary SPECKATA_STATE_DIR. Only exercise 01 is relied on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from speckata.manifest import exercise_by_id, repo_root

ROOT = repo_root()
SAMPLES = ROOT / "tests" / "kata_samples"
EXERCISE = "01-speculative-step"
FILE = "ex01_speculative_step.py"
ESCAPE = "\033["


def kata(*args: str, state_dir: Path, cwd: Path = ROOT, env: dict | None = None, timeout: float = 120):
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update({"SPECKATA_STATE_DIR": str(state_dir), **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "speckata.cli", *args], cwd=cwd, env=environment,
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
    )


@pytest.fixture
def state_dir(tmp_path) -> Path:
    return tmp_path / "state"


def shown(run: subprocess.CompletedProcess) -> str:
    return f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"


# kata check on each kind of learner file -----------------------------------------------------------

SAMPLE_VERDICTS = {
    "solved": (0, ["SOLVED", exercise_by_id(EXERCISE).teaches]),
    "failing": (1, ["FAILING", "yours:", "expected:", "<-- first difference", "kata hint 01-speculative-step"]),
    "endless_loop": (1, ["FAILING", "stopped after 3 s", "did not return"]),
    "syntax_error": (1, ["FAILING", f"tests/kata_samples/syntax_error/{FILE}, line 9: SyntaxError",
                         "does not parse (SyntaxError); no test could run"]),
    "misnamed": (1, ["FAILING", "no function named `speculative_step`", "speculative_stepp"]),
    "untouched": (3, ["NOT ATTEMPTED", "speculative_step is not written yet", "theory/01-speculative-step.md"]),
}


def sample_folder(sample: str, tmp_path: Path) -> str:
    """The sample's folder; "untouched" is a fresh copy of the real stub, so it never drifts from it."""
    if sample != "untouched":
        return f"tests/kata_samples/{sample}"
    folder = tmp_path / "untouched"
    folder.mkdir()
    shutil.copy(ROOT / "exercises" / FILE, folder / FILE)
    return str(folder)


LOOP_LIMIT = 3  # only for the endless loop: no other sample may depend on the machine's speed


@pytest.mark.parametrize("sample", SAMPLE_VERDICTS)
def test_check_explains_each_kind_of_learner_file(sample, state_dir, tmp_path):
    started = time.monotonic()
    target = sample_folder(sample, tmp_path)
    limit = [f"--test-timeout={LOOP_LIMIT}"] if sample == "endless_loop" else []
    run = kata("check", EXERCISE, f"--target={target}", *limit, state_dir=state_dir)
    code, phrases = SAMPLE_VERDICTS[sample]
    assert run.returncode == code, shown(run)
    for phrase in phrases:
        assert phrase in run.stdout, f"{phrase!r} missing\n{shown(run)}"
    assert "Traceback" not in run.stdout + run.stderr, shown(run)
    assert "DEBUG-FROM-LEARNER" not in run.stdout, "the learner's prints leaked into the verdict"
    assert ESCAPE not in run.stdout, "colour codes in piped output"
    if sample == "endless_loop":  # stopped at its limit, not at the whole run's 300 s (a generous bound)
        assert time.monotonic() - started < 60 + 2 * LOOP_LIMIT
    assert not state_dir.joinpath("state.json").exists() or EXERCISE not in state_dir.joinpath("state.json").read_text(), (
        "grading another folder (--target) must not record progress"
    )


def test_the_first_difference_is_highlighted_on_a_colour_terminal_only(state_dir):
    args = ("check", EXERCISE, "--target=tests/kata_samples/failing")
    coloured = kata(*args, state_dir=state_dir, env={"FORCE_COLOR": "1"})
    marked = [line for line in coloured.stdout.splitlines() if "<-- first difference" in line]
    assert marked and marked[0].startswith(ESCAPE), shown(coloured)
    plain = kata(*args, state_dir=state_dir, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert plain.returncode == 1 and "<-- first difference" in plain.stdout
    assert ESCAPE not in plain.stdout + plain.stderr, "NO_COLOR must win"


def test_an_import_error_names_the_file_and_the_line(tmp_path, state_dir):
    folder = tmp_path / "imports"
    folder.mkdir()
    (folder / FILE).write_text("import numpy as np\nfrom speckata import no_such_helper\n")
    run = kata("check", EXERCISE, f"--target={folder}", state_dir=state_dir)
    assert run.returncode == 1 and f"{FILE}, line 2: importing the file raised ImportError" in run.stdout, shown(run)
    assert "no_such_helper" in run.stdout and "Traceback" not in run.stdout


def test_a_run_that_the_learners_import_ends_is_failing_not_a_grader_error(tmp_path, state_dir):
    folder = tmp_path / "dies"
    folder.mkdir()
    (folder / FILE).write_text("import os\nos._exit(0)  # kills pytest before it writes its report\n")
    run = kata("check", EXERCISE, f"--target={folder}", state_dir=state_dir)
    assert run.returncode == 1 and "your code ended the grading process during" in run.stdout, shown(run)


STUBBORN = "import time\n\ndef speculative_step(p, q, draft, rng):\n    while True:\n        try:\n            " \
           "time.sleep(0.05)\n        except BaseException:\n            pass\n"


def stubborn_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "stubborn"
    folder.mkdir()
    (folder / FILE).write_text(STUBBORN)
    return folder


def test_code_that_swallows_the_time_limit_is_still_stopped_at_the_test_limit(tmp_path, state_dir):
    folder = stubborn_folder(tmp_path)
    started = time.monotonic()
    run = kata("check", EXERCISE, f"--target={folder}", "--test-timeout=1", "--timeout=120", state_dir=state_dir)
    assert run.returncode == 1 and "stopped after 1 s" in run.stdout, shown(run)
    assert "caught every attempt to stop it" in run.stdout and f"{FILE}:6" in run.stdout, shown(run)
    assert time.monotonic() - started < 60  # not the whole run's 120 s


def test_the_overall_timeout_stops_a_run_without_a_test_limit(tmp_path, state_dir):
    folder = stubborn_folder(tmp_path)
    started = time.monotonic()
    run = kata("check", EXERCISE, f"--target={folder}", "--test-timeout=0", "--timeout=4", state_dir=state_dir)
    assert run.returncode == 1 and "grading was stopped after 4 s" in run.stdout, shown(run)
    assert time.monotonic() - started < 60


def test_unknown_ids_and_folders_are_usage_errors(state_dir):
    run = kata("check", "no-such-exercise", state_dir=state_dir)
    assert run.returncode == 2 and "no exercise 'no-such-exercise'" in run.stderr, shown(run)
    run = kata("list", "--target=no/such/folder", state_dir=state_dir)
    assert run.returncode == 2 and "no such folder" in run.stderr, shown(run)


def test_list_and_status_show_states_and_the_next_exercise(state_dir):
    listing = kata("list", "--target=tests/kata_samples/solved", state_dir=state_dir)
    assert listing.returncode == 0, shown(listing)
    row = next(line for line in listing.stdout.splitlines() if EXERCISE in line)
    assert "solved" in row and "easy" in row and "->" not in row, shown(listing)
    status = kata("status", "--target=tests/kata_samples/failing", state_dir=state_dir)
    assert status.returncode == 0, shown(status)
    assert f"Next: {EXERCISE}" in status.stdout and "failing" in status.stdout
    assert f"tests/kata_samples/failing/{FILE}" in status.stdout and "notebooks/01-speculative-step.ipynb" in status.stdout


def test_hints_come_one_tier_per_call(state_dir):
    hints = exercise_by_id(EXERCISE).hints
    for tier in [*range(1, len(hints) + 1), len(hints)]:
        run = kata("hint", "1", state_dir=state_dir)
        assert run.returncode == 0 and f"hint {tier} of {len(hints)}" in run.stdout, shown(run)
        assert " ".join(hints[tier - 1].split()[:6]) in " ".join(run.stdout.split())
    assert "last hint" in run.stdout


def test_help_documents_the_exit_codes(state_dir):
    run = kata("--help", state_dir=state_dir)
    assert run.returncode == 0 and "3  not attempted" in run.stdout, shown(run)
    watch_help = kata("watch", "--help", state_dir=state_dir)
    assert "polling" in watch_help.stdout and "--poll" in watch_help.stdout
    script = Path(sys.executable).with_name("kata")
    if script.exists():  # installed by `pip install -e .` as a console script
        installed = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
        assert installed.returncode == 0 and "exit codes" in installed.stdout


# A throwaway repository with exercise 01 only: reset, progress and solution gating ---------------

def only_exercise_01(manifest: str) -> str:
    """The manifest with exercise 01's table only (the others are being written in parallel)."""
    tables = manifest.split("\n[[exercise]]\n")[1:]
    keep = next(t for t in tables if f'id = "{EXERCISE}"' in t)
    return "[[exercise]]\n" + keep.split("\n#")[0].split("\n\n")[0] + "\n"


@pytest.fixture
def repository(tmp_path) -> Path:
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "speckata", copy / "speckata", ignore=ignore)
    for support in ("reference", "shared"):  # the suite's independent reference and shared test support
        if (ROOT / "tests" / support).is_dir():
            shutil.copytree(ROOT / "tests" / support, copy / "tests" / support, ignore=ignore)
    for relative in ("pyproject.toml", "tests/__init__.py", f"tests/test_{EXERCISE[:2]}_speculative_step.py",
                     f"exercises/{FILE}", f"solutions/{FILE}"):
        (copy / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, copy / relative)
    manifest = copy / "speckata" / "manifest.toml"
    manifest.write_text(only_exercise_01(manifest.read_text()))
    git = ["git", "-c", "user.name=kata test", "-c", "user.email=kata@example.invalid"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "stubs"]):
        subprocess.run(git + command, cwd=copy, check=True, capture_output=True)
    return copy


def test_progress_solution_gating_and_reset_in_a_repository(repository, state_dir):
    def run(*args, cwd=repository):  # the copy's own package and manifest, from any folder inside it
        return kata(*args, state_dir=state_dir, cwd=cwd, env={"PYTHONPATH": str(repository)})

    stub = repository / "exercises" / FILE
    pristine = stub.read_text()
    status = run()
    assert status.returncode == 0 and "0 of 1 exercises solved" in status.stdout, shown(status)
    assert run("check").returncode == 3
    locked = run("solution", EXERCISE)
    assert locked.returncode == 1 and "def speculative_step" not in locked.stdout, shown(locked)
    assert "def speculative_step" in run("solution", EXERCISE, "--force").stdout

    solved_text = (SAMPLES / "solved" / FILE).read_text()
    stub.write_text(solved_text)
    solved = run("check", cwd=repository / "exercises")  # the next unsolved one, found from a subfolder
    assert solved.returncode == 0 and "SOLVED" in solved.stdout and "Every exercise is solved" in solved.stdout, shown(solved)
    assert "1 of 1 exercises solved" in run("list", cwd=repository / "tests").stdout
    unlocked = run("solution", "1")
    assert unlocked.returncode == 0 and "RESIDUAL_MASS_EPS" in unlocked.stdout, shown(unlocked)

    refused = run("reset", "1")  # stdin is closed: no confirmation, nothing changes
    assert refused.returncode == 1 and stub.read_text() == solved_text, shown(refused)
    reset = run("reset", "1", "--yes")
    assert reset.returncode == 0 and stub.read_text() == pristine, shown(reset)
    backups = list((state_dir / "backups").glob(f"{FILE}.*"))
    assert len(backups) == 1 and backups[0].read_text() == solved_text
    assert run("check", EXERCISE).returncode == 3
    assert run("solution", EXERCISE).returncode == 0, "once solved, the solution stays unlocked"
