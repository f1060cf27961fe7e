"""The house keeps its shape: small files, and imports that run down the layers without a circle.

Two of the rules in CONTRIBUTING's map, held by CI so that a new exercise cannot quietly undo them:
no tracked Python file over MAX_LINES lines (a file that grows past it is split by task or by
concern), and scripts/import_map.py's verdict on speckata/ (no import up the layers, no circle
among modules, no package outside a layer).
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

from speckata.manifest import repo_root

ROOT = repo_root()
MAX_LINES = 300


def tracked_python_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [name for name in listed.stdout.splitlines() if (ROOT / name).is_file()]


def test_no_python_file_is_over_300_lines():
    files = tracked_python_files()
    assert len(files) > 200, f"git ls-files found only {len(files)} Python files: is this a checkout?"
    long = {name: lines for name in files if (lines := len((ROOT / name).read_text().splitlines())) > MAX_LINES}
    assert not long, f"files over {MAX_LINES} lines (split them by task or by concern): {long}"


def test_imports_run_down_the_layers_without_a_circle():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import import_map
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        verdict = import_map.main(ROOT)
    assert verdict == 0, printed.getvalue()
    assert "imports up the layers: none" in printed.getvalue() and "module import circles: none" in printed.getvalue()
