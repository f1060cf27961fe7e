"""Code written before speckata/models/ was split still imports: every old path is its new home's module.

The stubs, pages and notebooks print the new paths; a learner's solution written against the old
ones (``from speckata.models.decoding import SpeculativeResult``) must keep working, with the very
same module object (a class imported by either path is one class; a monkeypatch reaches both).
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from speckata.manifest import repo_root
from speckata.moved import OLD_PATHS

ROOT = repo_root()


@pytest.mark.parametrize("old, new", sorted(OLD_PATHS.items()))
def test_an_old_path_imports_its_new_home_itself(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)


def test_a_fresh_interpreter_imports_an_old_path_first_and_gets_one_class():
    """As a learner's file would, before anything else imported the new home."""
    code = ("from speckata.models.decoding import autoregressive_generate as a\n"
            "from speckata.models.results import SpeculativeResult as R\n"
            "from speckata.decoding.results import SpeculativeResult\n"
            "from speckata.decoding.baseline import autoregressive_generate\n"
            "assert R is SpeculativeResult and a is autoregressive_generate\n"
            "print('ok')")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


def test_nothing_the_learner_reads_prints_an_old_path():
    printed = [path for folder in ("exercises", "solutions", "theory", "notebooks/sources")
               for path in sorted((ROOT / folder).rglob("*")) if path.suffix in (".py", ".md")
               and any(old in path.read_text() for old in OLD_PATHS)]
    assert not printed, f"old import paths printed in {[str(p.relative_to(ROOT)) for p in printed]}"
