"""The mutant gate: every grading suite must fail on every deliberately wrong solution.

Mutants live in tests/mutants/<exercise file stem>.toml as find/replace edits of the reference
solution. For each one this copies solutions/ to a temporary folder, applies the edit, grades the
copy with ``pytest --target`` on the exercise's suite, and requires real test failures (not
errors, not "not attempted"); where the mutant names ``must_fail`` tests, those must fail.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from speckata.grading.suite_run import SuiteRun, run_suite
from speckata.manifest import exercise_by_id, repo_root
from tests.maintainer.session_work import session_work

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
    if not mutant["find"]:  # the unmutated control
        return
    source_path = folder / exercise.file
    source = source_path.read_text()
    occurrences = source.count(mutant["find"])
    assert occurrences == 1, (
        f"mutant {mutant['name']}: its `find` text occurs {occurrences} times in solutions/{exercise.file} "
        "(must be exactly once); update the mutant to the current solution"
    )
    source_path.write_text(source.replace(mutant["find"], mutant["replace"]))


class WarmServer:
    """One warm grading server (warm_suite_server.py) per worker thread; a fresh run if it is gone."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.maintainer.warm_suite_server"], cwd=repo_root(), text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )

    def grade(self, selection: list[str], folder: Path, options: list[str], timeout: float) -> SuiteRun:
        try:
            request = {"selection": selection, "target": str(folder), "options": options, "timeout": timeout}
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            answer = json.loads(self.process.stdout.readline())
        except (OSError, ValueError):  # the server died: grade this one the slow way
            return run_suite(selection, folder, options=options, timeout=timeout)
        return SuiteRun(answer["returncode"], answer["report"], answer["output"], answer["seconds"])

    def close(self) -> None:
        """Ends the server with an empty line, not by closing its input alone: a process forked from this
        pytest after the server started holds the pipe's writing end too, and the end of input waits for it."""
        try:
            self.process.stdin.write("\n")
            self.process.stdin.close()
        except OSError:  # the server is gone already
            pass
        self.process.wait(timeout=60)


_worker = threading.local()
_servers: list[WarmServer] = []


def start_worker() -> None:
    """Worker threads leave SIGALRM (the plugin's per-test time limit) to the main thread, and each
    starts its own warm server."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    start_server()


def start_server() -> None:
    """This thread's warm server (none where there is no fork)."""
    _worker.server = WarmServer() if hasattr(os, "fork") else None
    if _worker.server:
        _servers.append(_worker.server)


def run_mutant(exercise_id: str, mutant: dict, workdir: Path):
    """Materialise and grade one mutant; returns (exit code, report or None, output tail).

    With ``must_fail`` tests named, only those run; otherwise the whole suite up to its first failure.
    """
    workdir.mkdir(parents=True)
    folder = workdir / "mutant"
    materialise(exercise_id, mutant, folder)
    suite = exercise_by_id(exercise_id).tests
    selection = [f"{suite}::{name}" for name in mutant.get("must_fail", [])] or [suite, "-x"]
    server = getattr(_worker, "server", None)
    grade = server.grade if server else lambda *args: run_suite(args[0], args[1], options=args[2], timeout=args[3])
    run = grade(selection, folder, ["--test-timeout=60"], 600)
    return run.returncode, run.report, run.tail(60)


@pytest.fixture(scope="session")
def mutant_runs(request, tmp_path_factory):
    """Grade every selected mutant, as many at a time as there are CPUs (each in a warm server's fork);
    in a worker of `pytest -n`, each when its test runs (tests/maintainer/session_work.py)."""
    selected = [item for item in request.session.items if item.originalname == "test_mutant_is_caught"]
    base = tmp_path_factory.mktemp("mutants")
    jobs = {item.callspec.id: (run_mutant, (*item.callspec.params.values(), base / f"m{index}"))
            for index, item in enumerate(selected)}
    controls = [item for item in request.session.items if item.originalname == "test_the_unmutated_reference_passes"]
    for item in controls:  # the same graders on the reference itself: a failure must come from the mutation
        exercise_id = item.callspec.params["exercise_id"]
        jobs[f"control:{exercise_id}"] = (run_mutant, (exercise_id, UNMUTATED, base / f"control-{exercise_id}"))
    runs = session_work(request.config, jobs, pool_initializer=start_worker, worker_start=start_server)
    yield runs
    runs.close()
    for server in _servers:
        server.close()


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


UNMUTATED = {"name": "none", "why": "the reference as it is", "find": "", "replace": ""}


@pytest.mark.parametrize("exercise_id", sorted({param.values[0] for param in load_mutants()}))
def test_the_unmutated_reference_passes(exercise_id, mutant_runs):
    """The control: graded the same way as its mutants (a warm server's fork), the reference passes.
    So a mutant's failures come from its mutation, never from the way it was graded."""
    returncode, report, output = mutant_runs[f"control:{exercise_id}"].result()
    assert returncode == 0 and report["states"][exercise_id] == "solved", f"exit {returncode}\n{output}"


def test_every_exercise_has_at_least_three_mutants():
    from speckata.manifest import load_manifest

    counts = {}
    for param in load_mutants():
        counts[param.values[0]] = counts.get(param.values[0], 0) + 1
    thin = {e.id: counts.get(e.id, 0) for e in load_manifest() if counts.get(e.id, 0) < 3}
    assert not thin, f"exercises with fewer than 3 mutants: {thin}"
