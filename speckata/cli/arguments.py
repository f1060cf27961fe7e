"""The command line of `kata`: its subcommands and options."""

from __future__ import annotations

import argparse

from speckata.cli import docs, grade, new
from speckata.cli.codes import EXIT_CODES_HELP

DESCRIPTION = """The learner's tool for speckata: progress, checks, hints, watch mode.
Without a command: your progress and the next exercise to do."""

EPILOG = EXIT_CODES_HELP + """

environment:
  NO_COLOR=1          never colour (colour is used only on a terminal anyway)
  FORCE_COLOR=1       colour even when piped
  SPECKATA_STATE_DIR  where progress is kept (default: .speckata/ at the repository root)

Works from any folder inside the repository."""


def grading_options() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("grading")
    group.add_argument("--target", metavar="PATH", default=None,
                       help="grade this folder (laid out like exercises/) instead of exercises/; nothing is recorded")
    group.add_argument("--test-timeout", type=float, default=30.0, metavar="SECONDS",
                       help="stop a single test after this long (default 30)")
    group.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                       help="stop a whole grading run after this long (default 300)")
    return parent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kata", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    grading = grading_options()

    status = commands.add_parser("status", parents=[grading], help="progress and the next exercise (the default)")
    status.add_argument("--markdown", action="store_true",
                        help="print the progress table as Markdown (for a job summary; see .github/workflows/grade.yml)")
    status.add_argument("--report", metavar="PATH", default=None,
                        help="with --markdown: the states a grading run wrote (pytest --report-json=PATH)")
    commands.add_parser("list", parents=[grading], help="every exercise with its state and difficulty")

    check = commands.add_parser(
        "check", parents=[grading], help="grade one exercise (default: the next unsolved one)",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("id", nargs="?", help="exercise id or number, e.g. 01-speculative-step or 1")
    check.add_argument("--streams", type=int, default=None, metavar="SEED",
                       help="a hidden suite: draw every generated case afresh from SEED (nothing is recorded)")

    hint = commands.add_parser("hint", help="the next hint tier for an exercise (default: the current one)")
    hint.add_argument("id", nargs="?", help="exercise id or number")

    watch = commands.add_parser(
        "watch", parents=[grading], help="re-check the current exercise whenever its file is saved",
        description="Re-check the current exercise whenever its file is saved; once it is solved, move on "
                    "to the next one (unless an ID is given). Changes are detected by polling the file's "
                    "modification time (no change-event library is used), so it works on any file system; "
                    "--poll sets the interval. A changed file is graded once it has stopped changing and parses "
                    "(a half-written save is not graded; one that does not parse is named, and the next save "
                    "waited for). Ctrl-C stops it (exit status 0).",
    )
    watch.add_argument("id", nargs="?", help="watch this exercise only")
    watch.add_argument("--poll", type=float, default=1.0, metavar="SECONDS",
                       help="how often to look at the file's modification time (default 1)")

    reset = commands.add_parser("reset", help="restore the pristine stub (your version is backed up)")
    reset.add_argument("id", help="exercise id or number")
    reset.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")

    solution = commands.add_parser("solution", parents=[grading], help="the reference solution, once solved")
    solution.add_argument("id", help="exercise id or number")
    solution.add_argument("--force", action="store_true", help="show it even if the exercise is not solved")

    new.add_parser(commands)  # maintainers only: the exercise scaffold (speckata/cli/new.py)
    docs.add_parser(commands)  # the theory as a site (speckata/cli/docs.py)
    grade.add_parser(commands)  # instructors: many folders, isolated (speckata/cli/grade.py)
    return parser
