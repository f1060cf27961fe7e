"""The theory as a site: theory pages, exercise texts and notebooks, built by MkDocs (Material).

mkdocs.yml at the repository root configures it; speckata/docs/hooks.py lays out the pages and
the navigation from the manifest (pages.py); `kata docs` builds and serves it (cli/docs.py).
"""
