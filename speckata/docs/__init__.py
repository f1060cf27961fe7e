"""The theory as a site: theory pages, exercise texts and notebooks, built by MkDocs (Material).

mkdocs.yml at the repository root configures it; speckata/docs/hooks.py lays out the pages and
the navigation from the manifest (pages.py) and finishes each page's HTML (html.py: plot alt text,
links to the exercise files); assets/site.css keeps every line on the screen; overrides/ holds the
one Material template we change. `kata docs` builds and serves it (cli/docs.py).
"""
