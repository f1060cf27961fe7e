"""MkDocs hook (mkdocs.yml `hooks:`): stage the pages and set the navigation before every build,
then give each exercise page its full title and finish its HTML (speckata/docs/html.py).

Loaded by MkDocs from this path, so `mkdocs build` alone works as well as `kata docs`.
"""

from __future__ import annotations

from pathlib import Path

from speckata.docs.html import describe_plots, file_pages, fix_toc_anchors, link_file_names
from speckata.docs.pages import exercise_page, navigation, notebook_page, page_titles, stage, theory_page
from speckata.manifest import load_manifest, repo_root


def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    if not (root / "speckata" / "manifest.toml").is_file():  # a config that INHERITs ours from elsewhere
        root = repo_root()
    stage(root, Path(config.docs_dir))
    config.nav = navigation()
    return config


def on_page_content(html, page, config, files):
    """Runs for every page before any is put in its template, so the footer of one page (which names
    the next) and the search index already see every page's meta title."""
    path = page.file.src_uri
    title = page_titles().get(path)
    if title is not None:
        page.meta["title"] = title
    if path.startswith("notebooks/"):
        html = describe_plots(html)
        fix_toc_anchors(page.toc, html)
    if path.startswith(("notebooks/", "theory/")):
        html = link_file_names(html, path, file_pages(load_manifest(), theory_page, exercise_page, notebook_page))
    return html
