"""Build the notebooks from their sources and execute them, so they are committed with outputs.

Each notebook has a source in notebooks/sources/<name>.py in jupytext's "percent" format: cells
start with ``# %%`` (code) or ``# %% [markdown]`` (Markdown, each line prefixed with ``# ``).
notebooks/jupytext.toml pairs each source with its notebook, so Jupyter with jupytext (or
``jupytext --sync notebooks/<name>.ipynb``) keeps the two in step while you edit. Run

    python notebooks/build.py            # every notebook
    python notebooks/build.py 01-speculative-step

and commit the .ipynb files it writes. tests/maintainer/test_notebooks.py executes them again in CI.

A notebook runs the reader's own functions through notebooks/learner.py, from exercises/ by
default. The build runs them against solutions/ (the committed outputs show the finished
results, and every expected value a notebook prints is checked against the reference); pass
``--code exercises`` to see what a reader with untouched stubs sees.

A rebuild of an unchanged source writes the same bytes (no spurious diffs): cell ids follow from
each cell's content, execution timings are not recorded, and jupytext's reading notes are dropped
(tests/maintainer/test_notebook_build.py builds one notebook twice and compares the bytes).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from learner import CODE_VARIABLE  # noqa: E402  (notebooks/learner.py: the notebooks' own helper)


KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def read_source(name: str) -> nbformat.NotebookNode:
    """The notebook's cells, as jupytext reads notebooks/sources/<name>.py (no outputs yet)."""
    notebook = jupytext.read(HERE / "sources" / f"{name}.py", fmt="py:percent")
    notebook.metadata = {"kernelspec": dict(KERNELSPEC)}  # jupytext's own reading notes are not kept
    for cell in notebook.cells:
        cell.metadata = {}  # e.g. jupytext's lines_to_next_cell: how the source was spaced, not content
    return stable_ids(notebook)


def stable_ids(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Cell ids from each cell's kind and text (nbformat draws random ones): a rebuild keeps them."""
    seen: dict[str, int] = {}
    for cell in notebook.cells:
        digest = hashlib.sha256(f"{cell.cell_type}\n{cell.source}".encode()).hexdigest()[:8]
        seen[digest] = seen.get(digest, 0) + 1
        cell.id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"  # a repeated cell stays unique
    return notebook


def build(name: str, target: Path | None = None) -> Path:
    """Execute notebooks/sources/<name>.py and write it with its outputs (default notebooks/<name>.ipynb)."""
    notebook = read_source(name)
    NotebookClient(notebook, timeout=600, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(HERE)}}).execute()
    nbformat.validate(notebook)
    target = target or HERE / f"{name}.ipynb"
    jupytext.write(notebook, target, fmt="ipynb")
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
