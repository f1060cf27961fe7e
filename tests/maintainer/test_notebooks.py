"""Every notebook executes headless, and its committed copy carries outputs."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from speckata.manifest import repo_root

NOTEBOOKS = sorted((repo_root() / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert code_cells and all(c.get("execution_count") for c in code_cells), (
        f"{path.name} is committed unexecuted: run python notebooks/build.py"
    )
    assert any(c.outputs for c in code_cells), f"{path.name} is committed without outputs"
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
