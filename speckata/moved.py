"""Old import paths that keep working for code written before speckata/models/ was split.

speckata/models/ once held five kinds of module; each now lives with its kind (the map is in
CONTRIBUTING.md). The stubs, pages and notebooks print the new paths, but code written
before the move imports the old ones (``from speckata.models.decoding import SpeculativeResult``),
so an import of an old path is answered with the module at its new home: the very same module
object, so classes, private names and monkeypatching behave as before. The finder is installed by ``speckata/__init__.py``;
it imports nothing until an old path is asked for (``import speckata`` stays torch-free).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

OLD_PATHS = {
    "speckata.adaptive_checks": "speckata.checks.adaptive",
    "speckata.models.checks": "speckata.checks.decoding",
    "speckata.models.decoding": "speckata.decoding.baseline",
    "speckata.models.distill_checks": "speckata.checks.distill",
    "speckata.models.eagle": "speckata.heads.eagle",
    "speckata.models.eagle_cache": "speckata.heads.eagle_cache",
    "speckata.models.medusa": "speckata.heads.medusa",
    "speckata.models.medusa_tree_checks": "speckata.heads.medusa_tree_checks",
    "speckata.models.results": "speckata.decoding.results",
    "speckata.models.sampling": "speckata.decoding.sampling",
    "speckata.models.tree_shapes": "speckata.decoding.tree_shapes",
}


class _ToNewHome(importlib.abc.Loader):
    def __init__(self, home: str):
        self.home = home

    def create_module(self, spec):
        module = importlib.import_module(self.home)
        self.home_spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = self.home_spec  # the import system set the old name's spec on it in between


class OldPathFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in OLD_PATHS:
            return None
        return importlib.util.spec_from_loader(name, _ToNewHome(OLD_PATHS[name]))


def install() -> None:
    if not any(isinstance(finder, OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.append(OldPathFinder())
