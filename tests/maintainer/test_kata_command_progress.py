"""An exercise solved, then edited and checked again: the last check is what counts, in code and README.

`kata` showed it unsolved after a failing re-check while the README said "one edited after it was
solved still counts as solved". The rule now, in both: an edit alone keeps it solved (`kata` and
`kata list` never grade); a check of the edited version that fails makes it failing and "next"
again (later exercises may import it), and `kata` says it was solved before.
"""

from __future__ import annotations

from speckata.manifest import repo_root
from tests.maintainer.test_kata_cli import EXERCISE, FILE, SAMPLES, kata, repository, shown, state_dir  # noqa: F401

README = repo_root() / "README.md"


def test_a_failing_recheck_of_a_solved_exercise_makes_it_next_and_says_it_was_solved(repository, state_dir):  # noqa: F811
    def run(*args):
        return kata(*args, state_dir=state_dir, cwd=repository, env={"PYTHONPATH": str(repository)})

    learner_file = repository / "exercises" / FILE
    learner_file.write_text((SAMPLES / "solved" / FILE).read_text())
    assert run("check", EXERCISE).returncode == 0
    learner_file.write_text((SAMPLES / "solved" / FILE).read_text() + "\n# tidied up\n")
    tidied = run()
    assert "1 of 1 exercises solved" in tidied.stdout and "Every exercise is solved" in tidied.stdout, shown(tidied)

    learner_file.write_text((SAMPLES / "failing" / FILE).read_text())
    rechecked = run("check", EXERCISE)
    assert rechecked.returncode == 1 and "FAILING" in rechecked.stdout, shown(rechecked)
    status = run()
    assert "0 of 1 exercises solved" in status.stdout, shown(status)
    assert f"Next: {EXERCISE}" in status.stdout, shown(status)
    assert "state:     failing  (solved before; the version checked last fails: kata check 01-speculative-step)" \
        in status.stdout, shown(status)
    assert run("solution", EXERCISE).returncode == 0, "once solved, the solution stays unlocked"


def test_the_readme_states_the_same_rule():
    text = " ".join(README.read_text().split())
    assert "still counts as solved until a check grades the edited version" in text
    assert "if that check fails, the exercise is failing again and is \"next\"" in text
