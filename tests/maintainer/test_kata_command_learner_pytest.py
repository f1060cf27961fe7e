"""A learner's plain `pytest` grades their exercises only.

The tests of the package's own helpers (tests/support/: 154 of them, two of which skip without a
GPU) used to be counted with the learner's exercises, and the skips showed right after the README
says a skip is a failure. They run with the maintainer gates (`pytest --target solutions
--maintainer`, what CI calls), or when named on the command line.
"""

from __future__ import annotations

import subprocess
import sys

from speckata.manifest import repo_root

ROOT = repo_root()


def collected(*args: str) -> list[str]:
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                         cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_a_learners_pytest_collects_the_exercise_suites_only():
    nodeids = collected()
    assert nodeids and all(nodeid.startswith("tests/test_") for nodeid in nodeids), (
        sorted({nodeid.split("::")[0] for nodeid in nodeids if not nodeid.startswith("tests/test_")}))


def test_the_maintainer_run_still_collects_the_helpers_tests():
    nodeids = collected("--target", "solutions", "--maintainer")
    assert any(nodeid.startswith("tests/support/") for nodeid in nodeids)
    assert any(nodeid.startswith("tests/maintainer/") for nodeid in nodeids)


def test_the_helpers_tests_run_when_named():
    nodeids = collected("tests/support/test_calling.py")
    assert nodeids and all(nodeid.startswith("tests/support/test_calling.py::") for nodeid in nodeids)
