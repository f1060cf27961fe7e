"""`kata grade`'s results.json: the exercism test-runner interface, version 3.

Top level: ``version`` (3), ``status`` ("pass": every test passed; "fail": some test failed;
"error": no test could run, with ``message`` saying why) and ``tests``, in the order of the test
files. Each test: ``name``, ``test_code`` (the test function's source), ``status`` ("pass" or
"fail"), ``message`` (the grader's explanation, null on a pass), ``output`` (what the code printed,
at most 500 characters, null when nothing) and ``task_id`` (the task of ``@pytest.mark.task(N)``).

A test the learner has not attempted (it raised NotImplementedError) is "fail" with the message
"not attempted: ..."; a test the grader itself skipped (a CUDA case without a GPU) is left out, as
it says nothing either way. An exercise that was not run at all (an untouched stub, a missing
file) has status "error", no tests, and a message saying why nothing ran, as the interface asks
when no test could run. tests/maintainer/exercism_results_v3.schema.json is the interface as a
JSON schema; tests/maintainer/test_kata_grade.py validates every results.json against it.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from speckata.grading.states import FAILED, NOT_ATTEMPTED, PASSED, SKIPPED

OUTPUT_LIMIT = 500
STATUS = {PASSED: "pass", FAILED: "fail", NOT_ATTEMPTED: "fail"}


@cache
def test_functions(suite: Path) -> dict[str, tuple[int, str]]:
    """Each test function of a suite file: its line and its source."""
    text = suite.read_text(encoding="utf-8")
    tree = ast.parse(text)
    return {node.name: (node.lineno, ast.get_source_segment(text, node) or "")
            for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def test_name(nodeid: str) -> str:
    return nodeid.split("::", 1)[-1]


def function_of(nodeid: str) -> str:
    return test_name(nodeid).split("[", 1)[0].split("::")[-1]


def exercism_test(entry: dict, root: Path, outputs: dict[str, str]) -> dict | None:
    if entry["outcome"] == SKIPPED:
        return None
    suite = root / entry["nodeid"].split("::", 1)[0]
    line_and_code = test_functions(suite).get(function_of(entry["nodeid"]), (0, "")) if suite.is_file() else (0, "")
    message = entry.get("message") or None
    if entry["outcome"] == NOT_ATTEMPTED and message and not message.startswith("not attempted"):
        message = f"not attempted: {message}"
    output = outputs.get(entry["nodeid"], "")
    test = {"name": test_name(entry["nodeid"]), "test_code": line_and_code[1],
            "status": STATUS.get(entry["outcome"], "fail"), "message": None if entry["outcome"] == PASSED else message,
            "output": output[:OUTPUT_LIMIT] if output else None}
    if entry.get("task") is not None:
        test["task_id"] = entry["task"]
    return test


def file_order(entries: list[dict], root: Path, exercise_order: dict[str, int]) -> list[dict]:
    """The report's tests in the order of the files (the grader runs fixed cases first, slow ones last)."""
    def key(indexed):
        index, entry = indexed
        suite = root / entry["nodeid"].split("::", 1)[0]
        line = test_functions(suite).get(function_of(entry["nodeid"]), (0, ""))[0] if suite.is_file() else 0
        return exercise_order.get(entry.get("exercise"), 0), line, index

    return [entry for _, entry in sorted(enumerate(entries), key=key)]


def results(entries: list[dict], root: Path, outputs: dict[str, str], exercise_order: dict[str, int],
            error: str = "") -> dict:
    """One results.json: over ``entries`` (report tests), or status error with ``error`` as its message."""
    if error:
        return {"version": 3, "status": "error", "message": error, "tests": []}
    tests = [t for t in (exercism_test(e, root, outputs) for e in file_order(entries, root, exercise_order)) if t]
    status = "pass" if tests and all(t["status"] == "pass" for t in tests) else "fail"
    return {"version": 3, "status": status, "tests": tests}
