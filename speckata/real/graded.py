"""The exercises' functions, taken from a graded folder (``solutions/`` by default, or ``--target``).

The decoders here reuse what the kata teaches rather than copy it: exercise 09's
``distillation_loss``, exercise 10's ``speculative_generate`` and exercise 13's ``ngram_draft``.
A graded folder is on ``sys.path`` while grading, so its files import as plain modules.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from speckata.manifest import repo_root


def graded_function(module: str, name: str, folder: str | Path = "solutions"):
    path = Path(folder)
    path = (path if path.is_absolute() else repo_root() / path).resolve()
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
    loaded = importlib.import_module(module)
    if Path(loaded.__file__).resolve().parent != path:
        raise ImportError(f"{module} was imported from {loaded.__file__}, not from {path}")
    return getattr(loaded, name)
