"""Every untouched stub is "not attempted" (and `pytest` on a fresh clone exits 0)."""

from __future__ import annotations

import json
import subprocess
import sys

from speckata.manifest import load_manifest, repo_root


def test_fresh_stubs_grade_as_not_attempted(tmp_path):
    report = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--target=exercises", "-q", "-p", "no:cacheprovider", f"--report-json={report}"],
        cwd=repo_root(), capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    result = json.loads(report.read_text())
    assert result["states"] == {exercise.id: "not attempted" for exercise in load_manifest()}
    graded = [t for t in result["tests"] if t["exercise"]]
    attempted = [t["nodeid"] for t in graded if t["outcome"] not in ("not attempted", "skipped")]
    assert not attempted, f"tests that an untouched stub does not fail: {attempted}"
    assert f"0 of {len(load_manifest())} exercises solved" in run.stdout
