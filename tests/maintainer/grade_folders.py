"""The folders a `kata grade` test run grades in (test_kata_grade.py, test_kata_grade_boundary.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from speckata.grading.isolation.bubblewrap import sandbox_problem


def sandboxed_run_folder(tmp_path_factory, name: str) -> Path:
    """A fresh folder for one run; fails (never skips) where kata grade's sandbox cannot start here."""
    problem = sandbox_problem()
    if problem:
        pytest.fail(f"kata grade needs its sandbox here: {problem}")
    return tmp_path_factory.mktemp(name)


def exercises_folder(base: Path, learner: str) -> Path:
    """base/learner/exercises, made and empty: one learner's folder as kata grade reads it."""
    folder = base / learner / "exercises"
    folder.mkdir(parents=True)
    return folder
