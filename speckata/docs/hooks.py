"""MkDocs hook (mkdocs.yml `hooks:`): stage the pages and set the navigation before every build.

Loaded by MkDocs from this path, so `mkdocs build` alone works as well as `kata docs`.
"""

from __future__ import annotations

from pathlib import Path

from speckata.docs.pages import navigation, stage
from speckata.manifest import repo_root


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    if not (root / "speckata" / "manifest.toml").is_file():  # a config that INHERITs ours from elsewhere
        root = repo_root()
    stage(root, Path(config.docs_dir))
    config.nav = navigation()
    return config
