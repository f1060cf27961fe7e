"""Every function a learner writes is a recognisable stub, as `kata reset` and the guide expect.

The shape gate checks that a stub holds a TODO marker and a NotImplementedError somewhere; this
checks each function of the manifest on its own (CONTRIBUTING: "Each function the learner writes
holds a `# TODO(NN-some-name): ...` line and `raise NotImplementedError(...)`"), and that
`kata reset` would take the file for the pristine stub (speckata/cli/pristine.py).
"""

from __future__ import annotations

import ast

import pytest

from speckata.cli.pristine import looks_pristine
from speckata.manifest import load_manifest, repo_root


def raises_not_implemented(function: ast.FunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            called = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(called, ast.Name) and called.id == "NotImplementedError":
                return True
    return False


@pytest.mark.parametrize("exercise", load_manifest(), ids=lambda e: e.id)
def test_each_function_of_the_stub_has_its_todo_and_raises(exercise):
    source = (repo_root() / "exercises" / exercise.file).read_text()
    lines = source.splitlines()
    functions = {node.name: node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}
    for name in exercise.functions:
        assert name in functions, f"{exercise.file} does not define {name} at the top level"
        function = functions[name]
        body = "\n".join(lines[function.lineno - 1:function.end_lineno])
        assert f"TODO({exercise.id})" in body, f"{exercise.file}: {name} has no `# TODO({exercise.id}): ...` line"
        assert raises_not_implemented(function), f"{exercise.file}: {name} does not raise NotImplementedError"
    assert looks_pristine(source, exercise), f"`kata reset` would not recognise {exercise.file} as a stub"
