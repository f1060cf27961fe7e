"""Where in the learner's own code something happened: one answer for tracebacks and live frames."""

from __future__ import annotations

import linecache
import traceback

from speckata.grading.target import inside_target, shown_path


def _describe(filename: str, lineno: int, function: str) -> str:
    code = linecache.getline(filename, lineno).strip()
    return f"{shown_path(filename)}:{lineno} in {function}:  {code}"


def learner_frame_of_error(error: BaseException) -> traceback.FrameSummary | None:
    """The deepest frame of ``error``'s traceback that runs the learner's code, or None."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if inside_target(f.filename)]
    return frames[-1] if frames else None


def learner_line_of_error(error: BaseException) -> str:
    """'file:line in f: code' for the deepest learner frame of ``error``'s traceback, or ''."""
    if hasattr(error, "speckata_learner_line"):  # raised in a worker process (grading/isolation)
        return error.speckata_learner_line
    frame = learner_frame_of_error(error)
    return _describe(frame.filename, frame.lineno, frame.name) if frame else ""


def learner_line_of_frame(frame) -> str:
    """The same for a running frame (where code was when it was stopped), walking outwards."""
    while frame is not None:
        if inside_target(frame.f_code.co_filename):
            return _describe(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return ""


def raised_in_learner_code(error: BaseException) -> bool:
    return bool(getattr(error, "speckata_learner_line", "")) or learner_frame_of_error(error) is not None
