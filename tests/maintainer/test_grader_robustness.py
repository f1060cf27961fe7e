"""The grader against learner code that tries, on purpose or not, to break it.

Each case writes a learner folder (a copy of solutions/ with one file replaced), grades it with
plain pytest in a subprocess through the same runner the kata command uses, and checks the
verdict a person would read. None of these depends on the machine's speed: a time bound is only
asserted where the old behaviour was to hang, and then with a wide margin.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from speckata.grading.suite_run import run_suite
from speckata.manifest import repo_root

ROOT = repo_root()
EX01 = "ex01_speculative_step.py"
WORKED_EXAMPLE = "tests/test_01_speculative_step.py::test_worked_example_all_accepted"


def learner_folder(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "learner"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def outcome_of(run, nodeid_part: str) -> dict:
    return next(t for t in run.report["tests"] if nodeid_part in t["nodeid"])


def explained(run) -> str:
    return f"exit {run.returncode}\n{run.tail(40)}"


# A time limit learner code cannot catch --------------------------------------------------------

CATCHES_EXCEPTION = """
def speculative_step(p, q, draft, rng):
    while True:
        try:
            rng.random()
        except Exception:
            pass
"""

CATCHES_EVERYTHING = """
import time

def speculative_step(p, q, draft, rng):
    while True:
        try:
            time.sleep(0.01)
        except BaseException:
            pass
"""


def test_a_loop_that_catches_exception_is_stopped_and_the_exercise_is_not_run_again(tmp_path):
    limit = 2
    folder = learner_folder(tmp_path, {EX01: CATCHES_EXCEPTION})
    started = time.monotonic()
    run = run_suite(["tests/test_01_speculative_step.py"], folder, options=[f"--test-timeout={limit}"], timeout=300)
    elapsed = time.monotonic() - started
    assert not run.timed_out and run.returncode == 1, explained(run)
    assert run.report["states"]["01-speculative-step"] == "failing"
    first, *rest = [t for t in run.report["tests"] if t["exercise"] == "01-speculative-step"]
    assert f"stopped after {limit} s: your code did not return" in first["message"], first
    assert f"{EX01}:" in first["message"] and "in speculative_step:" in first["message"], "names the stuck line"
    assert rest and all("stopped: your code did not return in" in t["message"] for t in rest), rest[:2]
    # The old grader spent the full limit on each of the 32 tests (64 s here); now one limit and
    # the start-up. The bound is wide: a slow machine only stretches the start-up.
    assert elapsed < 32 * limit, explained(run)


def test_a_loop_that_catches_everything_ends_the_run_with_a_verdict(tmp_path):
    folder = learner_folder(tmp_path, {EX01: CATCHES_EVERYTHING})
    run = run_suite(["tests/test_01_speculative_step.py"], folder, options=["--test-timeout=1"], timeout=300)
    assert not run.timed_out and run.returncode == 1, explained(run)
    assert "caught every attempt to stop it" in run.output, explained(run)
    assert run.report["states"]["01-speculative-step"] == "failing"


# Results of the wrong kind --------------------------------------------------------------------

RETURNING = """
from speckata import check_step_inputs
import sys
sys.path.insert(0, {solutions!r})
from ex01_speculative_step import speculative_step as right

def speculative_step(p, q, draft, rng):
    tokens = right(p, q, draft, rng)
    return {expression}
"""


@pytest.mark.parametrize("expression, shown", [
    ("__import__('numpy').array(tokens)", "yours returned numpy.ndarray [1 2 0]"),
    ("tuple(tokens)", "yours returned tuple (1, 2, 0)"),
    ("__import__('torch').tensor(tokens)", "yours returned torch.Tensor tensor([1, 2, 0])"),
    ("(t for t in tokens)", "yours returned generator"),
    ("None", "yours returned None (a missing return statement?)"),
    ("[__import__('numpy').int64(t) for t in tokens]", "element 0 is numpy.int64 1"),
], ids=["array", "tuple", "tensor", "generator", "none", "numpy-ints"])
def test_a_result_of_the_wrong_kind_gets_a_contract_message(tmp_path, expression, shown):
    source = RETURNING.format(solutions=str(tmp_path / "reference"), expression=expression)
    shutil.copytree(ROOT / "solutions", tmp_path / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    # the learner's own module must not be found as "ex01_speculative_step" from the reference copy
    source = source.replace("from ex01_speculative_step import speculative_step as right",
                            "import importlib.util as _u\n_s = _u.spec_from_file_location('reference01', "
                            f"{str(tmp_path / 'reference' / EX01)!r})\n_m = _u.module_from_spec(_s)\n"
                            "_s.loader.exec_module(_m)\nright = _m.speculative_step")
    folder = learner_folder(tmp_path, {EX01: source})
    run = run_suite([WORKED_EXAMPLE], folder, timeout=300)
    message = outcome_of(run, "test_worked_example_all_accepted")["message"]
    assert "speculative_step must return a list of plain ints" in message and shown in message, message
    assert "Traceback" not in message and "ambiguous" not in message


# Skips and early exits are never passes -----------------------------------------------------------

SKIPS = """
import pytest

def speculative_step(p, q, draft, rng):
    pytest.skip("not today")
"""


def test_a_test_the_learner_skips_is_a_failure(tmp_path):
    folder = learner_folder(tmp_path, {EX01: SKIPS})
    run = run_suite(["tests/test_01_speculative_step.py"], folder, timeout=300)
    assert run.returncode == 1 and run.report["states"]["01-speculative-step"] == "failing", explained(run)
    message = outcome_of(run, "test_worked_example_all_accepted")["message"]
    assert "your code skipped this test" in message and f"{EX01}:5" in message, message


def test_the_graders_own_skips_are_reported_as_such(tmp_path):
    run = run_suite(["tests/test_08_batched_verifier.py"], ROOT / "solutions", timeout=600)
    assert run.returncode == 0 and run.report["states"]["08-batched-verifier"] == "solved", explained(run)
    skipped = [t for t in run.report["tests"] if t["outcome"] == "skipped"]
    assert skipped and all("CUDA" in t["message"] for t in skipped)
    assert "skipped here: the grader's choice" in run.output


EXITS = """
import os

def speculative_step(p, q, draft, rng):
    os._exit(0)
"""


def test_a_learner_exit_never_makes_plain_pytest_exit_zero(tmp_path):
    folder = learner_folder(tmp_path, {EX01: EXITS})
    run = run_suite(["tests/test_01_speculative_step.py"], folder, timeout=300)
    assert run.returncode not in (0, None), explained(run)
    assert "ended before pytest's summary" in run.output and "does not count as passed" in run.output


# The learner's folder cannot shadow the grader's imports ------------------------------------------

def test_a_scratch_file_named_like_an_installed_module_does_not_shadow_it(tmp_path):
    folder = learner_folder(tmp_path, {"sympy.py": "raise ImportError('the learner scratch file was imported')\n",
                                       "numpy.py": "raise ImportError('the learner scratch file was imported')\n"})
    run = run_suite(["tests/test_08_batched_verifier.py"], folder, timeout=600)
    assert run.returncode == 0 and run.report["states"]["08-batched-verifier"] == "solved", explained(run)
