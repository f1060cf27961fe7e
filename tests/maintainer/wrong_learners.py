"""Wrong versions a learner writes, loaded from files as the learner's module, and the failure a
suite's own test function raises on them (run in-process, with that module in the learner's place).

Used by the diagnostics tests (test_diagnostics_*.py, test_first_event.py: edited copies of the
solution) and test_reports_per_position.py (the mutants of tests/mutants/).
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest

from speckata.grading import GradingFailure
from speckata.manifest import exercise_by_id, repo_root

_loaded = itertools.count()


def module_from_file(name: str, path: Path):
    """The module in ``path``, imported under ``name`` (not put in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def edited_solution(tmp_path, exercise_id: str, *edits: tuple[str, str]):
    """The exercise's solution with each (find, replace) applied, loaded from a file of its own."""
    file = exercise_by_id(exercise_id).file
    source = (repo_root() / "solutions" / file).read_text()
    for find, replace in edits:
        assert source.count(find) == 1, f"{find!r} must occur once in solutions/{file}"
        source = source.replace(find, replace)
    path = tmp_path / f"wrong_{next(_loaded)}" / file
    path.parent.mkdir(parents=True)
    path.write_text(source)
    return module_from_file(f"learner_{path.parent.name}_{path.stem}", path)


def in_learners_place(tmp_path, monkeypatch, module, function: str, exercise_id: str, *edits: tuple[str, str]):
    """The solution with ``edits`` (edited_solution) given to ``module``, which asks for the learner's
    ``function`` by calling ``module.<function>()``; returns the wrong module."""
    learner = edited_solution(tmp_path, exercise_id, *edits)
    monkeypatch.setattr(module, function, lambda: getattr(learner, function))
    return learner


def failure_of(test, *args) -> GradingFailure:
    """The GradingFailure that the suite's ``test(*args)`` raises (the test fails if it raises none)."""
    with pytest.raises(GradingFailure) as caught:
        test(*args)
    return caught.value
