"""A warm grading server for the mutant gate: start-up paid once, every mutant graded in a fork.

Grading a mutant in a fresh ``python -m pytest`` costs the interpreter's start-up and the imports of
pytest, numpy and (for exercises 07-13) torch, often more than the suite itself. This server
imports them and every suite's helper modules once (speckata/cli/warm_grader.py: no torch operation
runs, so forking stays safe), then grades each request in a child forked from itself, exactly as
``kata watch`` does: the child imports the suite and the mutated solution afresh and writes the
plugin's report file, so a verdict here is the verdict of a fresh run.

Protocol: one JSON request per line on stdin, {"selection", "target", "options", "timeout"}; one JSON
answer per line on stdout, {"returncode", "report", "output", "seconds"}. An empty line, or the end of
input, ends it. (The gate sends the empty line: the end of input never comes while any process forked
from the gate's pytest, without exec, still holds a copy of the pipe's writing end.)
Run as ``python -m tests.maintainer.warm_suite_server`` from the repository root.
"""

from __future__ import annotations

import json
import os
import sys

from speckata.cli.warm_grader import run_suite_warm, warm_up
from speckata.manifest import load_manifest, repo_root


def main() -> None:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")  # the protocol's own stream
    sys.stdout = sys.stderr  # anything else printed here stays out of it
    root = repo_root()
    for exercise in load_manifest():
        warm_up(root / exercise.tests)
    for line in sys.stdin:
        if not line.strip():
            break
        request = json.loads(line)
        run = run_suite_warm(request["selection"], request["target"], options=request["options"],
                             timeout=request["timeout"], cwd=root)
        answers.write(json.dumps({"returncode": run.returncode, "report": run.report, "output": run.output,
                                  "seconds": run.seconds}) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
