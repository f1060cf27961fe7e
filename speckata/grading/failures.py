"""Failures written for a person: what was called, what came back, what was expected."""

from __future__ import annotations

import traceback
from pathlib import Path


class GradingFailure(AssertionError):
    """A test failed; ``str(failure)`` is the whole explanation (the plugin shows no traceback)."""


def where_in_learner_code(error: BaseException) -> str:
    """The deepest line of the learner's own code in the traceback, as 'file:line in f: code'."""
    from speckata.grading.target import shown_path, target_dir

    folder = target_dir()
    frames = [f for f in traceback.extract_tb(error.__traceback__) if _inside(f.filename, folder)]
    if not frames:
        return ""
    frame = frames[-1]
    return f"  at {shown_path(frame.filename)}:{frame.lineno} in {frame.name}:  {(frame.line or '').strip()}"


def _inside(filename: str, folder: Path) -> bool:
    try:
        Path(filename).resolve().relative_to(folder)
        return True
    except ValueError:
        return False


def call_learner(function, *args, case: str = "", **kwargs):
    """Call the learner's function; turn any exception but NotImplementedError into a readable failure.

    NotImplementedError passes through untouched: the plugin reports it as "not attempted".
    """
    from speckata.replay import ReplayError

    try:
        return function(*args, **kwargs)
    except (NotImplementedError, GradingFailure):
        raise
    except ReplayError as error:
        raise GradingFailure(
            f"{function.__name__} broke the random-number contract: {error}\n"
            f"{where_in_learner_code(error)}\n\n{case}".rstrip()
        ) from None
    except Exception as error:
        raise GradingFailure(
            f"{function.__name__} raised {type(error).__name__}: {error}\n"
            f"{where_in_learner_code(error)}\n\n{case}".rstrip()
        ) from None


def expect_value_error(function, *args, mentions: tuple[str, ...], problem: str, **kwargs) -> None:
    """The call must raise ValueError whose message contains every phrase in ``mentions``."""
    try:
        result = function(*args, **kwargs)
    except NotImplementedError:
        raise
    except ValueError as error:
        message = str(error)
        missing = [phrase for phrase in mentions if phrase.lower() not in message.lower()]
        if missing:
            raise GradingFailure(
                f"{function.__name__} rightly raised ValueError for {problem}, but its message does not "
                f"name the problem.\n  message:        {message!r}\n  should mention: "
                + ", ".join(repr(m) for m in missing)
                + "\n(speckata.check_step_inputs writes such messages; you may call it.)"
            ) from None
        return
    except Exception as error:
        raise GradingFailure(
            f"{function.__name__} should raise ValueError for {problem}, "
            f"but raised {type(error).__name__}: {error}\n{where_in_learner_code(error)}".rstrip()
        ) from None
    raise GradingFailure(
        f"{function.__name__} should raise ValueError for {problem}, but returned {result!r}."
    )
