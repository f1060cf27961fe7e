"""Which folder is graded: one rule for the pytest plugin and the kata command, and one holder.

The graded folder is laid out like exercises/ (``solutions`` is the reference). It is chosen once
per pytest session by the plugin (``--target``) and read by everything that loads learner code.
"""

from __future__ import annotations

from pathlib import Path

from speckata.manifest import repo_root

_target: Path | None = None


def resolve_target(value: str | Path, base: Path) -> Path:
    """``value`` as a folder: absolute as given, else relative to ``base``, else to the repository.

    The result may not exist; callers report that in their own words.
    """
    path = Path(value).expanduser()
    if path.is_absolute():
        return path.resolve()
    for folder in (base, repo_root()):
        if (folder / path).is_dir():
            return (folder / path).resolve()
    return (base / path).resolve()


def set_target(path: Path) -> None:
    """Grade the folder ``path`` from now on (learner_code.py notices and forgets older modules)."""
    global _target
    _target = Path(path).resolve()


def target_dir() -> Path:
    """The graded folder (``exercises/`` until the plugin or a caller chooses another)."""
    return _target if _target is not None else (repo_root() / "exercises").resolve()


def is_reference_target() -> bool:
    return target_dir() == (repo_root() / "solutions").resolve()


def inside_target(filename: str | Path) -> bool:
    try:
        Path(filename).resolve().relative_to(target_dir())
        return True
    except (ValueError, OSError):
        return False


def shown_path(path: str | Path) -> str:
    """A path as the learner knows it: relative to the repository when it lies inside it."""
    try:
        return Path(path).resolve().relative_to(repo_root()).as_posix()
    except ValueError:
        return str(path)
