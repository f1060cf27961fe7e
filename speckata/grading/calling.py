"""Calling the learner's functions: crashes become readable failures that point at their line."""

from __future__ import annotations

from collections.abc import Callable

from speckata.grading.failures import GradingFailure
from speckata.grading.learner_lines import learner_line_of_error


def _at(error: BaseException) -> str:
    line = learner_line_of_error(error)
    return f"  at {line}" if line else ""


def call_learner(function, *args, case: str | Callable[[], str] = "", **kwargs):
    """Call the learner's function; turn any exception but NotImplementedError into a readable failure.

    NotImplementedError passes through untouched: the plugin reports it as "not attempted".
    ``case`` describes the call for the failure message; a function returning that text is called
    only when there is a failure to describe (formatting arrays for every passing call is costly).
    """
    from speckata.replay import ReplayError

    try:
        return function(*args, **kwargs)
    except (NotImplementedError, GradingFailure):
        raise
    except ReplayError as error:
        case = case() if callable(case) else case
        raise GradingFailure(
            f"{function.__name__} broke the random-number contract: {error}\n{_at(error)}\n\n{case}".rstrip()
        ) from None
    except Exception as error:
        case = case() if callable(case) else case
        raise GradingFailure(
            f"{function.__name__} raised {type(error).__name__}: {error}\n{_at(error)}\n\n{case}".rstrip()
        ) from None


def checking_helpers_hint(function) -> str:
    """A last line naming the given checking helpers the learner's module imports (each exercise's
    stub imports the ones that write its messages), or '' when it imports none: naming a helper of
    another exercise would send the learner the wrong way."""
    helpers = sorted(name for name, value in getattr(function, "__globals__", {}).items()
                     if callable(value) and name.startswith("check")
                     and (getattr(value, "__module__", None) or "").startswith("speckata"))
    if not helpers:
        return ""
    if len(helpers) == 1:
        return f"\n({helpers[0]}, which your file imports from speckata, writes such messages; you may call it.)"
    return (f"\n({', '.join(helpers[:-1])} and {helpers[-1]}, which your file imports from speckata, write such "
            "messages; you may call them.)")


def expect_value_error(function, *args, mentions: tuple[str, ...], problem: str, **kwargs) -> None:
    """The call must raise ValueError whose message contains every phrase in ``mentions``."""
    try:
        result = function(*args, **kwargs)
    except (NotImplementedError, GradingFailure):
        raise
    except ValueError as error:
        message = str(error)
        missing = [phrase for phrase in mentions if phrase.lower() not in message.lower()]
        if missing:
            raise GradingFailure(
                f"{function.__name__} rightly raised ValueError for {problem}, but its message does not "
                f"name the problem.\n  message:        {message!r}\n  should mention: "
                + ", ".join(repr(m) for m in missing)
                + checking_helpers_hint(function)
            ) from None
        return
    except Exception as error:
        raise GradingFailure(
            f"{function.__name__} should raise ValueError for {problem}, "
            f"but raised {type(error).__name__}: {error}\n{_at(error)}".rstrip()
        ) from None
    raise GradingFailure(f"{function.__name__} should raise ValueError for {problem}, but returned {result!r}.")
