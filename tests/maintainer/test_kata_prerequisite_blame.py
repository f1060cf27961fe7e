"""`kata check` blames a prerequisite only when the prerequisite's own suite fails.

The wrong version: exercise 20 that forgets the bonus token after an accepted leaf, so at the end
it hands exercise 18's tree_attention_mask an empty tree, and 18 rightly raises. With 18 solved
and tidied up afterwards (a comment added: its state is "not checked yet" under --target), the
failure's traceback line lies in 18's file; `kata check` used to print "SOLVE 18 FIRST ... The
failure is in 18's code". Now it grades 18's suite, sees it pass, and reports 20's own failure.
With 18 still the stub, 18 is blamed as before.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from speckata.manifest import repo_root

ROOT = repo_root()
BONUS = "    return path, sample_token(p[node], generator)  # a leaf was accepted: the bonus token\n"
NEW_TOKENS = "        new = [tokens[node] for node in path] + [extra]\n"


def folder_with_20_missing_its_bonus(tmp_path: Path, ex18_solved: bool) -> Path:
    folder = tmp_path / "learner"
    shutil.copytree(ROOT / "exercises", folder, ignore=shutil.ignore_patterns("__pycache__"))
    if ex18_solved:
        text = (ROOT / "solutions" / "ex18_tree_attention_mask.py").read_text()
        (folder / "ex18_tree_attention_mask.py").write_text(text + "# tidied up after it was solved\n")
    text = (ROOT / "solutions" / "ex20_tree_verification.py").read_text()
    assert text.count(BONUS) == 1 and text.count(NEW_TOKENS) == 1
    text = text.replace(BONUS, "    return path, None  # forgot the bonus token\n")
    text = text.replace(NEW_TOKENS, "        new = [tokens[node] for node in path] + ([extra] if extra is not None else [])\n")
    (folder / "ex20_tree_verification.py").write_text(text)
    return folder


def check_20(folder: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["SPECKATA_STATE_DIR"] = str(tmp_path / "state")
    return subprocess.run([sys.executable, "-m", "speckata.cli", "check", "20", "--target", str(folder)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600, check=False)


def test_a_prerequisite_that_passes_its_own_suite_is_not_blamed(tmp_path):
    run = check_20(folder_with_20_missing_its_bonus(tmp_path, ex18_solved=True), tmp_path)
    shown = run.stdout + run.stderr
    assert run.returncode == 1, shown
    assert "SOLVE 18 FIRST" not in run.stdout and "FAILING  20-tree-verification" in run.stdout, shown
    assert "18-tree-attention-mask passes its own suite" in run.stdout and "the bug is in 20-tree-verification" in run.stdout


def test_an_unsolved_prerequisite_named_in_the_failure_is_still_blamed(tmp_path):
    run = check_20(folder_with_20_missing_its_bonus(tmp_path, ex18_solved=False), tmp_path)
    assert "SOLVE 18 FIRST" in run.stdout and "which is not attempted" in run.stdout, run.stdout + run.stderr
