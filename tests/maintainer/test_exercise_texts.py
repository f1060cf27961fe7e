"""The examples in every exercise text (the stub's docstring) hold for the reference solution."""

from __future__ import annotations

import doctest
import importlib.util

import pytest

from speckata.manifest import load_manifest, repo_root


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("exercise", load_manifest(), ids=lambda e: e.id)
def test_exercise_text_examples_run_against_the_solution(exercise):
    stub = load(repo_root() / "exercises" / exercise.file, f"stub_{exercise.module}")
    solution = load(repo_root() / "solutions" / exercise.file, f"solution_{exercise.module}")
    texts = [stub.__doc__ or ""] + [getattr(stub, name).__doc__ or "" for name in exercise.functions]
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    attempted = 0
    for index, text in enumerate(texts):
        test = parser.get_doctest(text, dict(vars(solution)), f"{exercise.file}[{index}]", exercise.file, 0)
        runner.run(test)
        attempted += len(test.examples)
    assert runner.summarize(verbose=False).failed == 0
    assert attempted > 0, f"{exercise.file}: the exercise text has no worked example"
