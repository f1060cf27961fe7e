"""Which folder is graded, and loading the learner's functions from it with readable errors."""

from __future__ import annotations

import difflib
import importlib
import inspect
import os
import sys
from pathlib import Path

from speckata.grading.failures import GradingFailure
from speckata.manifest import exercise_by_id, repo_root

_target: Path | None = None
_loaded: dict[str, object] = {}


def set_target(path: Path) -> None:
    """Grade the folder ``path`` (laid out like exercises/) from now on."""
    global _target
    folder = Path(path).resolve()
    if _target == folder:
        return
    if _target is not None and str(_target) in sys.path:
        sys.path.remove(str(_target))
    for name in list(_loaded):
        sys.modules.pop(name, None)
    _loaded.clear()
    _target = folder
    # On sys.path so that a later exercise can import an earlier one of the same folder.
    sys.path.insert(0, str(folder))


def target_dir() -> Path:
    if _target is None:
        set_target(Path(os.environ.get("SPECKATA_TARGET", repo_root() / "exercises")))
    return _target


def shown_path(path: Path) -> str:
    """A path as the learner knows it: relative to the repository when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(repo_root()))
    except ValueError:
        return str(path)


def _load_module(module_name: str, path: Path):
    if module_name in _loaded:
        result = _loaded[module_name]
        if isinstance(result, GradingFailure):
            raise GradingFailure(str(result))
        return result
    try:
        if not path.is_file():
            raise GradingFailure(f"{shown_path(path)} does not exist: the graded folder has no file for this exercise")
        sys.modules.pop(module_name, None)
        module = importlib.import_module(module_name)
        if Path(module.__file__).resolve() != path.resolve():
            raise GradingFailure(
                f"importing {module_name} found {shown_path(module.__file__)} instead of {shown_path(path)}"
            )
    except SyntaxError as error:
        where = f"{shown_path(error.filename or path)}, line {error.lineno}"
        code = (error.text or "").rstrip()
        failure = GradingFailure(f"{where}: SyntaxError: {error.msg}\n    {code}")
        _loaded[module_name] = failure
        raise failure from None
    except GradingFailure as failure:
        _loaded[module_name] = failure
        raise
    except Exception as error:  # ImportError, NameError at import time, ...
        frame = _last_frame_in(error, path)
        where = f"{shown_path(path)}, line {frame.lineno}" if frame else shown_path(path)
        failure = GradingFailure(f"{where}: importing the file raised {type(error).__name__}: {error}")
        _loaded[module_name] = failure
        raise failure from None
    _loaded[module_name] = module
    return module


def _last_frame_in(error: BaseException, path: Path):
    import traceback

    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename).resolve() == path.resolve()]
    return frames[-1] if frames else None


def learner_function(exercise_id: str, name: str):
    """The function ``name`` of exercise ``exercise_id`` from the graded folder."""
    exercise = exercise_by_id(exercise_id)
    path = target_dir() / exercise.file
    module = _load_module(exercise.module, path)
    function = getattr(module, name, None)
    if callable(function):
        return function
    defined = [n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__]
    close = difflib.get_close_matches(name, defined, n=1)
    guess = f" Did you misname `{close[0]}`?" if close else ""
    raise GradingFailure(
        f"{shown_path(path)} has no function named `{name}` (it defines: {', '.join(defined) or 'nothing'}).{guess}\n"
        f"Exercise {exercise_id} fixes this name: the grader calls `{name}`."
    )
