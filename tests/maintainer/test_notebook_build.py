"""notebooks/build.py reads its sources with jupytext, and a rebuild of an unchanged source is byte-stable.

Built on one small notebook (02-acceptance-rate, about 10 s a build): twice into a scratch folder,
the two files must be identical bytes, so rebuilding the committed notebooks never makes a diff
when nothing changed (no random cell ids, no execution timestamps).
"""

from __future__ import annotations

import importlib.util
import json

import jupytext
import pytest

from speckata.manifest import repo_root

ROOT = repo_root()
NOTEBOOK = "02-acceptance-rate"
CODE_VARIABLE = "SPECKATA_NOTEBOOK_CODE"  # notebooks/learner.py: what the build points at solutions/


def load_build_module():
    spec = importlib.util.spec_from_file_location("notebook_build", ROOT / "notebooks" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built_twice(tmp_path_factory):
    build = load_build_module()
    folder = tmp_path_factory.mktemp("notebook-build")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CODE_VARIABLE, "solutions")  # as `python notebooks/build.py` sets it; the kernel inherits it
        return [build.build(NOTEBOOK, folder / f"build-{n}.ipynb").read_bytes() for n in (1, 2)]


def test_rebuilding_an_unchanged_source_writes_the_same_bytes(built_twice):
    first, second = built_twice
    assert first == second, f"two builds of {NOTEBOOK} differ: the build is not byte-stable"


def test_the_built_cells_are_the_source_as_jupytext_reads_it(built_twice):
    built = json.loads(built_twice[0])
    source = jupytext.read(ROOT / "notebooks" / "sources" / f"{NOTEBOOK}.py", fmt="py:percent")
    assert [(c["cell_type"], "".join(c["source"])) for c in built["cells"]] == \
        [(c.cell_type, c.source) for c in source.cells]
    code_cells = [c for c in built["cells"] if c["cell_type"] == "code"]
    assert all(c["outputs"] for c in code_cells), "a code cell of the built notebook has no output"
    assert not any("execution" in c["metadata"] for c in built["cells"]), "execution timings were recorded"
    assert "jupytext" not in built["metadata"], "jupytext's reading notes ended up in the notebook"


def test_the_build_has_no_hand_written_parser_and_the_pairing_is_configured():
    build = load_build_module()
    assert not hasattr(build, "parse_cells"), "notebooks/build.py parses the percent format by hand again"
    config = (ROOT / "notebooks" / "jupytext.toml").read_text()
    assert 'formats = "ipynb,sources//py:percent"' in config
