"""The mutant gate: every grading suite must fail on every deliberately wrong solution.

Mutants live in tests/mutants/<exercise file stem>.toml as find/replace edits of the reference
solution. For each one this copies solutions/ to a temporary folder, applies the edit, grades the
copy with ``pytest --target`` on the exercise's suite, and requires real test failures (not
errors, not "not attempted"); where the mutant names ``must_fail`` tests, those must fail.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from speckata.grading.suite_run import run_suite
from speckata.manifest import exercise_by_id, repo_root

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MUTANTS_DIR = repo_root() / "tests" / "mutants"


def load_mutants():
    cases = []
    for path in sorted(MUTANTS_DIR.glob("*.toml")):
        spec = tomllib.loads(path.read_text())
        for mutant in spec["mutant"]:
            cases.append(pytest.param(spec["exercise"], mutant, id=f"{spec['exercise']}:{mutant['name']}"))
    return cases


def materialise(exercise_id: str, mutant: dict, folder: Path) -> None:
    exercise = exercise_by_id(exercise_id)
    shutil.copytree(repo_root() / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    source_path = folder / exercise.file
    source = source_path.read_text()
    occurrences = source.count(mutant["find"])
    assert occurrences == 1, (
        f"mutant {mutant['name']}: its `find` text occurs {occurrences} times in solutions/{exercise.file} "
        "(must be exactly once); update the mutant to the current solution"
    )
    source_path.write_text(source.replace(mutant["find"], mutant["replace"]))


def block_alarms() -> None:
    """Worker threads leave SIGALRM (the plugin's per-test time limit) to the main thread."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})


def run_mutant(exercise_id: str, mutant: dict, workdir: Path):
    """Materialise and grade one mutant; returns (exit code, report or None, output tail).

    With ``must_fail`` tests named, only those run; otherwise the whole suite up to its first failure.
    """
    workdir.mkdir(parents=True)
    folder = workdir / "mutant"
    materialise(exercise_id, mutant, folder)
    suite = exercise_by_id(exercise_id).tests
    selection = [f"{suite}::{name}" for name in mutant.get("must_fail", [])] or [suite, "-x"]
    run = run_suite(selection, folder, options=["--test-timeout=60"], timeout=600)
    return run.returncode, run.report, run.tail(60)


@pytest.fixture(scope="session")
def mutant_runs(request, tmp_path_factory):
    """Grade every selected mutant, as many at a time as there are CPUs (each is a subprocess)."""
    selected = [item for item in request.session.items if item.originalname == "test_mutant_is_caught"]
    base = tmp_path_factory.mktemp("mutants")
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, initializer=block_alarms)
    runs = {
        item.callspec.id: pool.submit(run_mutant, *item.callspec.params.values(), base / f"m{index}")
        for index, item in enumerate(selected)
    }
    yield runs
    pool.shutdown(cancel_futures=True)


@pytest.mark.parametrize("exercise_id, mutant", load_mutants())
def test_mutant_is_caught(exercise_id, mutant, mutant_runs, request):
    returncode, report, output = mutant_runs[request.node.callspec.id].result()
    assert returncode == 1, (
        f"mutant {mutant['name']} ({mutant['why']}): expected test failures (exit 1), got exit {returncode}\n" + output
    )
    failed = {t["nodeid"].split("::", 1)[1] for t in report["tests"] if t["outcome"] == "failed"}
    assert failed, f"mutant {mutant['name']} caused no test failure"
    missed = [name for name in mutant.get("must_fail", []) if name not in failed]
    assert not missed, f"mutant {mutant['name']} ({mutant['why']}) passed tests that must catch it: {missed}"


def test_every_exercise_has_at_least_three_mutants():
    from speckata.manifest import load_manifest

    counts = {}
    for param in load_mutants():
        counts[param.values[0]] = counts.get(param.values[0], 0) + 1
    thin = {e.id: counts.get(e.id, 0) for e in load_manifest() if counts.get(e.id, 0) < 3}
    assert not thin, f"exercises with fewer than 3 mutants: {thin}"
