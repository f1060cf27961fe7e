"""Build the notebooks from their sources and execute them, so they are committed with outputs.

Each notebook has a source in notebooks/sources/<name>.py in "percent" format: cells start with
``# %%`` (code) or ``# %% [markdown]`` (Markdown, each line prefixed with ``# ``). Run

    python notebooks/build.py            # every notebook
    python notebooks/build.py 01-speculative-step

and commit the .ipynb files it writes. tests/maintainer/test_notebooks.py executes them again in CI.

A notebook runs the reader's own functions through notebooks/learner.py, from exercises/ by
default. The build runs them against solutions/ (the committed outputs show the finished
results, and every expected value a notebook prints is checked against the reference); pass
``--code exercises`` to see what a reader with untouched stubs sees.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from learner import CODE_VARIABLE  # noqa: E402  (notebooks/learner.py: the notebooks' own helper)


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
    parser = argparse.ArgumentParser(description="Build and execute the notebooks from notebooks/sources/.")
    parser.add_argument("names", nargs="*", help="e.g. 01-speculative-step (default: every notebook)")
    parser.add_argument("--code", default="solutions", metavar="FOLDER",
                        help=f"the folder the notebooks' own-exercise cells run (sets {CODE_VARIABLE}; default solutions)")
    args = parser.parse_args()
    os.environ[CODE_VARIABLE] = args.code  # the kernel inherits it
    for name in args.names or sorted(p.stem for p in (HERE / "sources").glob("*.py")):
        print("built", build(name).relative_to(HERE.parent))
