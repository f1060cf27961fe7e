"""scripts/check_wait.py measures the learner's wait for `kata check` (issue 40): its choices, checked
without timing anything (the timings themselves depend on the machine and are never asserted)."""

from __future__ import annotations

import importlib.util

from speckata.manifest import load_manifest, repo_root
from tests.maintainer.chi_square_checks import CHECKS


def check_wait():
    spec = importlib.util.spec_from_file_location("check_wait", repo_root() / "scripts" / "check_wait.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_torch_exercise_has_a_wrong_version_that_an_exact_test_catches():
    script = check_wait()
    measured = [exercise for exercise in load_manifest() if script.suite_imports_torch(exercise)]
    assert {"07-torch-step", "20-tree-verification", "30-eagle2-tree"} <= {exercise.id for exercise in measured}
    for exercise in measured:
        mutant = script.first_exact_mutant(exercise.id)
        assert mutant is not None, f"{exercise.id}: no wrong version for the wrong attempt's wait"
        chi_square = {check.test.split("[")[0] for check in CHECKS if check.exercise == exercise.id}
        exact = [test for test in mutant["must_fail"] if test.split("[")[0] not in chi_square]
        assert exact, f"{exercise.id}: {mutant['name']} is caught only by a chi-square test"


def test_the_numpy_exercises_are_left_to_be_named():
    script = check_wait()
    assert not script.suite_imports_torch(next(e for e in load_manifest() if e.id == "01-speculative-step"))
