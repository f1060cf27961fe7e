"""A result that would judge itself is refused as a result of the wrong kind, in `kata check` and plain pytest.

tests/kata_samples/always_equal/ returns its (wrong) tokens in a list subclass whose == is always
true: asked whether it equals the expected tokens, it says yes, and 31 of exercise 01's tests used
to pass (the first failure came from the statistical test, and named the distribution). The grader
must name the result's kind at the first call instead.
"""

from __future__ import annotations

import os
import subprocess
import sys

from speckata.manifest import repo_root

ROOT = repo_root()


def test_check_refuses_a_list_whose_equality_is_always_true(tmp_path):
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment["SPECKATA_STATE_DIR"] = str(tmp_path / "state")
    run = subprocess.run([sys.executable, "-m", "speckata.cli", "check", "01", "--target=tests/kata_samples/always_equal"],
                         cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    shown = f"exit {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert run.returncode == 1, shown
    assert "FAILING  01-speculative-step: Task 1 of 8, test_worked_example_all_accepted\n" in run.stdout, shown
    assert ("speculative_step returned AlwaysEqual, a subclass of list written in your code that defines its own "
            "__eq__, __ne__") in run.stdout, shown
    assert "Return a plain list." in run.stdout, shown


def test_a_learner_named_tuple_is_not_refused_and_a_disguised_class_is(tmp_path):
    """The rule in one process: exercise 08's own NamedTuple passes; a class that claims to be numpy's does not."""
    module = tmp_path / "ex08_batched_verifier.py"
    module.write_text(
        "from typing import NamedTuple\n\n"
        "class VerifiedBatch(NamedTuple):\n    tokens: list\n    num_accepted: list\n\n"
        "class Disguised(list):\n    def __eq__(self, other):\n        return True\n\n"
        "Disguised.__module__ = 'numpy'\n"
    )
    script = (
        "import sys; from pathlib import Path\n"
        "from speckata.grading.target import set_target\n"
        f"set_target(Path({str(tmp_path)!r})); sys.path.insert(0, {str(tmp_path)!r})\n"
        "import ex08_batched_verifier as learner\n"
        "from speckata.grading.returns import self_judging_problem\n"
        "print(repr(self_judging_problem(learner.VerifiedBatch([1], [2]))))\n"
        "print(self_judging_problem(learner.Disguised([1])))\n"
        "print(self_judging_problem([1, learner.Disguised()]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = run.stdout.splitlines()
    assert run.returncode == 0 and len(lines) == 3, run.stdout + run.stderr
    assert lines[0] == "''"
    assert lines[1].startswith("Disguised, a subclass of list written in your code that defines its own __eq__")
    assert lines[2].startswith("element 1 of its result is Disguised, a subclass of list")
