"""`kata docs`: build the theory, the exercise texts and the notebooks into a site, and serve it.

MkDocs (Material theme, mkdocs-jupyter for the notebooks) builds it in strict mode from mkdocs.yml:
a broken link, a missing page or an unlisted one fails the build. The pages and the navigation
come from the repository and its manifest (speckata/docs/). `kata docs --build-only` builds into
build/site and exits (CI); plain `kata docs` then serves build/site on 127.0.0.1 until Ctrl-C.
Math is typeset by the KaTeX the site ships, so the pages need no network when viewed.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

from speckata.cli import codes

NEEDED = ("mkdocs", "material", "mkdocs_jupyter")  # the docs extra
INSTALL = ".venv/bin/python -m pip install -e '.[docs]'"


def add_parser(commands) -> None:
    docs = commands.add_parser(
        "docs", help="build the theory, exercise texts and notebooks into a site and serve it locally",
        description="Build the site into build/site with MkDocs in strict mode (a broken link or a missing "
                    "page fails the build), then serve it at http://127.0.0.1:PORT until Ctrl-C. "
                    f"Needs the docs extra: {INSTALL}",
    )
    docs.add_argument("--build-only", action="store_true", help="build (strict) and exit: what CI runs")
    docs.add_argument("--port", type=int, default=8000, help="where to serve it (default 8000)")


def build_site(root: Path) -> tuple[int, float]:
    """Run the strict build; its exit status and seconds."""
    (root / "build" / "site-src").mkdir(parents=True, exist_ok=True)  # MkDocs checks docs_dir before the hook fills it
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's notice about MkDocs 2, once per build
    started = time.monotonic()
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(root / "mkdocs.yml")]
    run = subprocess.run(command, cwd=root, env=environment)
    return run.returncode, time.monotonic() - started


def serve(folder: Path, port: int) -> None:
    import http.server  # here, not at the top: every kata command imports this module for its parser

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"Serving the site at http://127.0.0.1:{port}/ (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print()


def run(ws, args) -> int:
    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        print(f"kata docs: the site needs the docs extra ({', '.join(missing)} missing): {INSTALL}", file=sys.stderr)
        return codes.GRADER_ERROR
    status, seconds = build_site(ws.root)
    if status != 0:
        print(f"kata docs: the strict build failed (exit {status}); see the warnings above", file=sys.stderr)
        return codes.FAILING
    print(f"Built the site in {seconds:.1f} s: {ws.shown(ws.root / 'build' / 'site' / 'index.html')}")
    if not args.build_only:
        serve(ws.root / "build" / "site", args.port)
    return codes.OK
