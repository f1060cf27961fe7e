"""Loading the learner's functions from the graded folder, with readable errors.

Learner modules are found by a finder of our own instead of by putting the folder on sys.path:
an exercise module (``ex01_speculative_step``) always comes from the graded folder, so a later
exercise can import an earlier one, while any other file there (a scratch ``sympy.py``) is
importable only under a name nothing else provides, so it cannot shadow the grader's imports.
"""

from __future__ import annotations

import difflib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import sys
from pathlib import Path

from speckata.grading import dynamo_stand_in
from speckata.grading.failures import GradingFailure
from speckata.grading.learner_lines import learner_frame_of_error
from speckata.grading.returns import with_return_contract
from speckata.grading.target import shown_path, target_dir
from speckata.manifest import exercise_by_id, load_manifest

_loaded: dict[str, object] = {}  # module name -> module, or the GradingFailure its import raised
_loaded_from: Path | None = None  # the graded folder those modules came from


class LearnerFolderFinder(importlib.abc.MetaPathFinder):
    """Finds top-level modules in the graded folder (see the module docstring for the rule)."""

    def find_spec(self, name, path=None, target=None):
        if path is not None or "." in name:
            return None
        file = target_dir() / f"{name}.py"
        if not file.is_file():
            return None
        exercise_modules = {exercise.module for exercise in load_manifest()}
        if name not in exercise_modules and provided_elsewhere(name):
            return None  # a learner's file named like a built-in or installed module never shadows it
        return importlib.util.spec_from_file_location(name, file)


def provided_elsewhere(name: str) -> bool:
    """Whether Python would find ``name`` without the graded folder (built in, frozen or on sys.path)."""
    return (name in sys.builtin_module_names or importlib.machinery.FrozenImporter.find_spec(name) is not None
            or importlib.machinery.PathFinder.find_spec(name) is not None)


_FINDER = LearnerFolderFinder()


def install_finder() -> None:
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def forget_modules_of_another_folder() -> None:
    """Drop every learner module loaded so far if the graded folder changed since."""
    global _loaded_from
    if _loaded_from != target_dir():
        for name in list(_loaded):
            sys.modules.pop(name, None)
        _loaded.clear()
        _loaded_from = target_dir()


def forget_every_module() -> None:
    """Drop every learner module loaded so far (a process forked to load them afresh)."""
    global _loaded_from
    for name in list(_loaded):
        sys.modules.pop(name, None)
    _loaded.clear()
    _loaded_from = None


def loaded_modules() -> list[str]:
    return sorted(_loaded)


def _import_failure(error: BaseException, path: Path) -> GradingFailure:
    if isinstance(error, SyntaxError):
        where = f"{shown_path(error.filename or path)}, line {error.lineno}"
        return GradingFailure(f"{where}: SyntaxError: {error.msg}\n    {(error.text or '').rstrip()}",
                              detail={"problem": f"{where} does not parse (SyntaxError); no test could run"})
    frame = learner_frame_of_error(error)
    where = f"{shown_path(frame.filename)}, line {frame.lineno}" if frame else shown_path(path)
    return GradingFailure(f"{where}: importing the file raised {type(error).__name__}: {error}",
                          detail={"problem": f"importing {shown_path(path)} failed; no test could run"})


def load_module(module_name: str, path: Path):
    """Import the learner's module once per graded folder; a failed import fails every later call too."""
    forget_modules_of_another_folder()
    if module_name in _loaded:
        result = _loaded[module_name]
        if isinstance(result, GradingFailure):
            raise GradingFailure(str(result), detail=result.detail)
        return result
    install_finder()
    try:
        if not path.is_file():
            raise GradingFailure(f"{shown_path(path)} does not exist: the graded folder has no file for this exercise")
        sys.modules.pop(module_name, None)
        module = importlib.import_module(module_name)
        if Path(module.__file__).resolve() != path.resolve():
            raise GradingFailure(
                f"importing {module_name} found {shown_path(module.__file__)} instead of {shown_path(path)}"
            )
    except GradingFailure as failure:
        _loaded[module_name] = failure
        raise
    except Exception as error:  # SyntaxError, ImportError, NameError at import time, ...
        failure = _import_failure(error, path)
        _loaded[module_name] = failure
        raise failure from None
    _loaded[module_name] = module
    dynamo_stand_in.install()  # torch.optim without torch._dynamo's import, once torch is here
    return module


def folder_function(exercise_id: str, name: str):
    """The function ``name`` of exercise ``exercise_id``, imported in this process from the graded folder.

    The isolated worker calls this directly; the grader calls ``lookup.learner_function``, which
    asks the isolated session first (this module never imports the session: no circle)."""
    exercise = exercise_by_id(exercise_id)
    path = target_dir() / exercise.file
    module = load_module(exercise.module, path)
    function = getattr(module, name, None)
    if callable(function):
        return with_return_contract(exercise_id, function)
    defined = [n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__]
    close = difflib.get_close_matches(name, defined, n=1)
    guess = f" Did you misname `{close[0]}`?" if close else ""
    raise GradingFailure(
        f"{shown_path(path)} has no function named `{name}` (it defines: {', '.join(defined) or 'nothing'}).{guess}\n"
        f"Exercise {exercise_id} fixes this name: the grader calls `{name}`."
    )
