"""Build the notebooks from their sources and execute them, so they are committed with outputs.

Each notebook has a source in notebooks/sources/<name>.py in "percent" format: cells start with
``# %%`` (code) or ``# %% [markdown]`` (Markdown, each line prefixed with ``# ``). Run

    python notebooks/build.py            # every notebook
    python notebooks/build.py 01-speculative-step

and commit the .ipynb files it writes. tests/maintainer/test_notebooks.py executes them again in CI.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def parse_cells(source: str):
    cells, kind, lines = [], None, []

    def flush():
        text = "\n".join(lines).strip("\n")
        if kind == "markdown":
            text = "\n".join(line[2:] if line.startswith("# ") else line.lstrip("#") for line in text.splitlines())
            cells.append(nbformat.v4.new_markdown_cell(text))
        elif kind == "code" and text.strip():
            cells.append(nbformat.v4.new_code_cell(text))

    for line in source.splitlines():
        if line.startswith("# %%"):
            flush()
            kind, lines = ("markdown" if "[markdown]" in line else "code"), []
        else:
            lines.append(line)
    flush()
    return cells


def build(name: str) -> Path:
    source = (HERE / "sources" / f"{name}.py").read_text()
    notebook = nbformat.v4.new_notebook(cells=parse_cells(source))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}).execute()
    nbformat.validate(notebook)
    target = HERE / f"{name}.ipynb"
    nbformat.write(notebook, target)
    return target


if __name__ == "__main__":
    names = sys.argv[1:] or sorted(p.stem for p in (HERE / "sources").glob("*.py"))
    for name in names:
        print("built", build(name).relative_to(HERE.parent))
