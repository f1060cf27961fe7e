"""Every untouched stub is "not attempted" (and `pytest` on a fresh clone exits 0)."""

from __future__ import annotations

from speckata.grading.suite_run import run_suite
from speckata.manifest import load_manifest


def test_fresh_stubs_grade_as_not_attempted():
    run = run_suite(["tests"], "exercises", timeout=600)
    assert run.returncode == 0, run.tail(60)
    result = run.report
    assert result["states"] == {exercise.id: "not attempted" for exercise in load_manifest()}
    graded = [t for t in result["tests"] if t["exercise"]]
    attempted = [t["nodeid"] for t in graded if t["outcome"] not in ("not attempted", "skipped")]
    assert not attempted, f"tests that an untouched stub does not fail: {attempted}"
    assert f"0 of {len(load_manifest())} exercises solved" in run.output
