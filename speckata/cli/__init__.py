"""`kata`: the learner's daily tool, a small program over the pytest suites in tests/.

Installed as the console script ``kata`` (``[project.scripts]``); also ``python -m speckata.cli``.
Grading runs pytest in a subprocess with the grading plugin's ``--report-json``; progress lives
in ``.speckata/state.json``. ``kata --help`` lists the commands and exit codes.
"""

from __future__ import annotations

import os
import sys

from speckata.cli import check, codes, docs, grade, hint, new, overview, reset, solution, watch
from speckata.cli.arguments import build_parser
from speckata.cli.workspace import UsageProblem, open_workspace

COMMANDS = {
    None: overview.status,
    "status": overview.status,
    "list": overview.list_exercises,
    "check": check.run,
    "hint": hint.run,
    "watch": watch.run,
    "reset": reset.run,
    "solution": solution.run,
    "new": new.run,
    "docs": docs.run,
    "grade": grade.run,
}


class QuietWhenReaderLeaves:
    """A standard stream whose reader may leave early (`kata solution 02 | head -1`): from then on its
    output goes to /dev/null instead of ending the command in a BrokenPipeError traceback, and the
    command finishes with its own exit code (a verdict is still recorded and reported by it)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._to_devnull()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._to_devnull()

    def _to_devnull(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())  # what is still buffered, and Python's flush at exit, go there too
        os.close(devnull)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    # Line by line even into a pipe, so `kata watch | tee log` (and the CLI's tests) see each verdict at once.
    sys.stdout.reconfigure(line_buffering=True)
    if not isinstance(sys.stdout, QuietWhenReaderLeaves):
        sys.stdout, sys.stderr = QuietWhenReaderLeaves(sys.stdout), QuietWhenReaderLeaves(sys.stderr)
    args = build_parser().parse_args(argv)
    try:
        workspace = open_workspace(args)
        return COMMANDS[args.command](workspace, args)
    except UsageProblem as problem:
        print(f"kata: {problem}", file=sys.stderr)
        return codes.USAGE
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return codes.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
