"""What a worked-example notebook runs: your own functions, from exercises/ (or the reference in CI).

A notebook never hands over its own exercise's code: it calls yours. While your stub still raises
NotImplementedError, a cell says "not written yet" (no traceback) and shows the expected values,
so the notebook reads well before you have written anything; re-run the cell after saving your
file. Earlier exercises a notebook builds on come from solutions/ (`reference`).

SPECKATA_NOTEBOOK_CODE picks the folder `yours` reads: "exercises" (the default), "solutions"
(what `python notebooks/build.py` and tests/maintainer/test_notebooks.py set, so CI executes
every notebook against the reference and checks each expected value), or any folder laid out
like exercises/.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sys
from pathlib import Path

CODE_VARIABLE = "SPECKATA_NOTEBOOK_CODE"
ROOT = Path(__file__).resolve().parent.parent


class NotWrittenYet(Exception):
    """Your function still raises NotImplementedError."""


def code_folder() -> Path:
    folder = Path(os.environ.get(CODE_VARIABLE) or "exercises").expanduser()
    return (folder if folder.is_absolute() else ROOT / folder).resolve()


def checking_the_reference() -> bool:
    return code_folder() == (ROOT / "solutions").resolve()


def shown(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def load(path: Path, module_name: str):
    """Import ``path`` afresh (so an edit shows on re-running the cell), its folder first on sys.path."""
    folder = str(path.parent)
    sys.path.insert(0, folder)
    forget_exercise_modules()  # your file may import an earlier one of yours: take that afresh too
    try:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(folder)
        # Leave no exNN_ module behind: a later plain import (say, the benchmark importing the
        # reference from solutions/) must not be handed this folder's copy.
        forget_exercise_modules()


def forget_exercise_modules() -> None:
    for name in [n for n in sys.modules if n.startswith("ex") and n[2:4].isdigit()]:
        del sys.modules[name]


def yours(module: str, name: str):
    """``name`` from your ``module`` (e.g. "ex01_speculative_step"); NotWrittenYet while it is a stub."""
    path = code_folder() / f"{module}.py"
    function = getattr(load(path, module), name)

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except NotImplementedError:
            raise NotWrittenYet(f"{name} in {shown(path)} is not written yet") from None

    return call


def reference(module: str, name: str):
    """``name`` from solutions/: for an EARLIER exercise a later notebook builds on."""
    return getattr(load(ROOT / "solutions" / f"{module}.py", f"reference_{module}"), name)


def whose() -> str:
    return "reference" if checking_the_reference() else "yours"


@contextlib.contextmanager
def until_written():
    """Run a cell's body; while your function is a stub, say so in one line instead of a traceback.

    Against the reference (CI) nothing is swallowed: every cell must run to the end.
    """
    try:
        yield
    except NotWrittenYet as stub:
        if checking_the_reference():
            raise
        print(f"{stub}: this cell runs once it is written. Save your file, then run the cell again.")


def compare(call, expected, *, describe=repr) -> None:
    """Your result beside the expected one; against the reference, the expected value is checked."""
    try:
        result = describe(call())
    except NotWrittenYet as stub:
        if checking_the_reference():
            raise
        result = f"({stub})"
    print(f"{whose() + ':':<11}{result}")
    print(f"{'expected:':<11}{describe(expected)}")
    if checking_the_reference():
        assert result == describe(expected), f"the notebook's expected value is wrong: the reference gives {result}"
    print()
