"""`kata`: the learner's daily tool, a small program over the pytest suites in tests/.

Installed as the console script ``kata`` (``[project.scripts]``); also ``python -m speckata.cli``.
Grading runs pytest in a subprocess with the grading plugin's ``--report-json``; progress lives
in ``.speckata/state.json``. ``kata --help`` lists the commands and exit codes.
"""

from __future__ import annotations

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


def main(argv: list[str] | None = None) -> int:
    # Line by line even into a pipe, so `kata watch | tee log` (and the CLI's tests) see each verdict at once.
    sys.stdout.reconfigure(line_buffering=True)
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
