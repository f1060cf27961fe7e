"""Every notebook executes headless, and its committed copy carries outputs.

A notebook that runs the reader's own code does so through notebooks/learner.py. CI points it at
the reference (SPECKATA_NOTEBOOK_CODE=solutions), so each expected value it prints is checked;
the same notebooks are run once more on the committed stubs, where every cell must still end
cleanly, saying "not written yet" instead of showing a traceback.
"""

from __future__ import annotations

import os
import re
import subprocess

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from speckata.manifest import load_manifest, repo_root
from tests.maintainer.session_work import session_work

ROOT = repo_root()
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CODE_VARIABLE = "SPECKATA_NOTEBOOK_CODE"  # notebooks/learner.py reads it; the default is exercises/
# The worked-example notebooks run the reader's own function: every exercise's, so a new
# exercise joins the checks below from its manifest entry.
RUNS_YOUR_CODE = tuple(exercise.id for exercise in load_manifest())


# Each run is one kernel, started from this process (a pytest worker, or a thread of a plain run's
# pool, as many as there are CPUs: a kernel runs one notebook on one core). A subprocess per run
# would import nbclient and its dependencies again each time, about a second of CPU for each of
# the 60 runs.
def execute_apart(path, folder: str, out):
    """Execute the notebook at ``path`` with the reader's code taken from ``folder``; the executed copy or the error."""
    environment = {**os.environ, CODE_VARIABLE: folder}  # the kernel inherits the environment
    for attempt in range(3):
        notebook = nbformat.read(path, as_version=4)
        client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        try:
            client.execute(env=environment)
        except Exception as error:  # noqa: BLE001 - every failure is reported to the test that asked
            # jupyter_client picks a kernel's TCP ports free, then lets them go until the kernel binds
            # them: a kernel started beside it can take one first, and the kernel dies before any
            # cell ran. Nothing ran yet: start it again.
            started = any(cell.get("execution_count") for cell in notebook.cells if cell.cell_type == "code")
            if not started and not isinstance(error, CellExecutionError) and attempt < 2:
                continue
            return f"{path.name} failed to execute (code from {folder}):\n{str(error)[-4000:]}"
        nbformat.write(notebook, out)
        return notebook


def committed_stubs(folder):
    """The stubs as committed, whatever exercises/ holds now."""
    folder.mkdir()
    for exercise in load_manifest():
        committed = subprocess.run(["git", "show", f"HEAD:exercises/{exercise.file}"], cwd=ROOT,
                                   capture_output=True, text=True, check=False)
        if committed.returncode == 0:
            (folder / exercise.file).write_text(committed.stdout)
    return folder


@pytest.fixture(scope="session")
def executions(request, tmp_path_factory):
    """Start every selected notebook run at once, each test waiting for its own; in a worker of
    `pytest -n`, each run when its test asks for it (tests/maintainer/session_work.py)."""
    base = tmp_path_factory.mktemp("notebooks")
    stubs = committed_stubs(base / "stubs")
    wanted = {}
    for item in request.session.items:
        if item.originalname == "test_notebook_executes":
            path = item.callspec.params["path"]
            wanted[(path.stem, "solutions")] = (path, "solutions")
        elif item.originalname == "test_notebook_on_untouched_stubs_says_not_written_yet":
            notebook_id = item.callspec.params["notebook_id"]
            wanted[(notebook_id, "stubs")] = (ROOT / "notebooks" / f"{notebook_id}.ipynb", str(stubs))
    runs = session_work(request.config, {key: (execute_apart, (path, folder, base / f"{key[0]}-{key[1]}.ipynb"))
                                         for key, (path, folder) in wanted.items()})
    yield runs
    runs.close()


def executed(executions, key):
    result = executions[key].result()
    if isinstance(result, str):
        pytest.fail(result)
    return result


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, executions):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert code_cells and all(c.get("execution_count") for c in code_cells), (
        f"{path.name} is committed unexecuted: run python notebooks/build.py"
    )
    assert any(c.outputs for c in code_cells), f"{path.name} is committed without outputs"
    executed(executions, (path.stem, "solutions"))


def source(notebook_id: str) -> str:
    return (ROOT / "notebooks" / "sources" / f"{notebook_id}.py").read_text()


@pytest.mark.parametrize("notebook_id", RUNS_YOUR_CODE)
def test_notebook_runs_your_code_not_its_own_exercise_reference(notebook_id):
    text = source(notebook_id)
    module = next(e.module for e in load_manifest() if e.id == notebook_id)
    assert f'learner.yours("{module}"' in text, f"{notebook_id} does not run the reader's own {module}"
    assert "../solutions" not in text and "sys.path" not in text, f"{notebook_id} imports solutions/ by path"
    assert not re.search(rf'reference\("{module}"|graded_function\("{module}"', text), \
        f"{notebook_id} runs its own exercise's reference solution"
    assert "change" not in text.lower() or '"../exercises"' not in text, f"{notebook_id} asks the reader to edit a path"


@pytest.mark.parametrize("notebook_id", RUNS_YOUR_CODE)
def test_notebook_on_untouched_stubs_says_not_written_yet(notebook_id, executions):
    notebook = executed(executions, (notebook_id, "stubs"))
    printed = "\n".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                        for output in cell.outputs)
    assert "is not written yet" in printed and "expected:" in printed, printed[-2000:]
    assert "Traceback" not in printed and "NotImplementedError(" not in printed
