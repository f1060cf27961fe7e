"""Every reference solution passes its grading suite (rustlings' dev check: "every solution passes").

CI grades solutions/ with every suite in the same session (`pytest --target solutions
--maintainer`), so there this gate skips each exercise whose suite the session already runs
against solutions/. Run on its own (`pytest --maintainer tests/maintainer`), it grades solutions/
in a subprocess.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from speckata.grading import target_dir
from speckata.grading.suite_run import run_suite
from speckata.manifest import load_manifest, repo_root

ROOT = repo_root()


def graded_in_this_session(request, suite: Path) -> bool:
    if target_dir() != (ROOT / "solutions").resolve():
        return False
    return any(Path(item.path).resolve() == suite for item in request.session.items)


@pytest.mark.parametrize("exercise", load_manifest(), ids=lambda e: e.id)
def test_every_solution_passes_its_suite(exercise, request, tmp_path):
    suite = (ROOT / exercise.tests).resolve()
    if graded_in_this_session(request, suite):
        pytest.skip("this session already grades solutions/ with this suite")
    run = run_suite([str(suite), "-x"], "solutions", timeout=1200)
    assert run.report is not None, run.tail(60)
    state = run.report["states"][exercise.id]
    assert state == "solved", f"solutions/{exercise.file} is {state}:\n" + run.tail(60)
