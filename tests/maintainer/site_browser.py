"""The site tests' machinery: the built site, a headless Chromium, a local server, a page fenced off the network.

Used by test_site.py. Each fixture skips (or fails with SPECKATA_REQUIRE_BROWSER=1) when the docs
extra or Chromium is missing.
"""

from __future__ import annotations

import fcntl
import functools
import http.server
import importlib.util
import os
import shutil
import subprocess
import threading
import time
from urllib.parse import urlparse

import pytest

from speckata.manifest import repo_root

ROOT = repo_root()
SITE = ROOT / "build" / "site"
SCREENSHOTS = ROOT / "build" / "site-screenshots"
KATA = ROOT / ".venv" / "bin" / "kata"
THEORY_WITH_DISPLAY_MATH = "theory/02-acceptance-rate.html"
NOTEBOOK = "notebooks/02-acceptance-rate.html"
# As root in a container Chromium needs --no-sandbox; the rest keep it from calling Google's hosts.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]


def unavailable(reason: str):
    if os.environ.get("SPECKATA_REQUIRE_BROWSER") == "1":
        pytest.fail(f"SPECKATA_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def built_site(request):
    """build/site, built by `kata docs --build-only` once a run: under `pytest -n`, the worker that comes
    second finds it built for this run (a second build would empty the folder under the first one's pages)."""
    missing = [name for name in ("mkdocs", "material", "mkdocs_jupyter") if importlib.util.find_spec(name) is None]
    if missing:
        unavailable(f"the docs extra is not installed ({', '.join(missing)}): pip install -e '.[docs]'")
    run_id = getattr(request.config, "workerinput", {}).get("testrunuid")
    SITE.parent.mkdir(exist_ok=True)
    with open(SITE.parent / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        built_for = SITE.parent / "site.built-for-run"
        if run_id and built_for.is_file() and built_for.read_text() == run_id:
            return SITE
        built_for.unlink(missing_ok=True)
        started = time.monotonic()
        run = subprocess.run([str(KATA), "docs", "--build-only"], cwd=ROOT, capture_output=True, text=True, timeout=900,
                             check=False)
        seconds = time.monotonic() - started
        assert run.returncode == 0, f"kata docs --build-only failed:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
        if run_id:
            built_for.write_text(run_id)
    print(f"\nsite built by kata docs --build-only in {seconds:.1f} s")
    return SITE


@pytest.fixture(scope="module")
def browser(built_site):
    if importlib.util.find_spec("playwright") is None:
        unavailable("Playwright's Python package is not installed (the docs extra)")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        unavailable("no Chromium: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def server(built_site):
    handler = functools.partial(QuietHandler, directory=str(built_site))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
        httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def fenced_page(browser, viewport: dict, is_mobile: bool = False, tabs: int = 1):
    """(context, page): a page that may only talk to the local server; every other request is refused
    and recorded in ``page.outside``, every JavaScript error in ``page.errors``. With ``tabs`` > 1,
    (context, [pages]): that many tabs of one context, fenced alike, sharing both records."""
    context = browser.new_context(viewport=viewport, is_mobile=is_mobile)
    outside: list[str] = []

    def route(request_route):
        host = urlparse(request_route.request.url).hostname
        if request_route.request.url.startswith("data:") or host == "127.0.0.1":
            return request_route.continue_()
        outside.append(request_route.request.url)
        return request_route.abort()

    context.route("**/*", route)
    errors: list[str] = []
    opened = [context.new_page() for _ in range(tabs)]
    for tab in opened:
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.outside, tab.errors = outside, errors
    return context, (opened[0] if tabs == 1 else opened)


@pytest.fixture
def page(browser, server):
    """A fenced page at 1280 x 900 (``fenced_page``)."""
    context, opened = fenced_page(browser, {"width": 1280, "height": 900})
    yield opened
    context.close()


def visit(page, server, path: str, screenshot: str):
    response = page.goto(f"{server}/{path}", wait_until="load")
    assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
    page.wait_for_load_state("networkidle")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / screenshot), full_page=False)
    assert not page.outside, f"{path} asked the network for {page.outside}"
    assert not page.errors, f"{path}: JavaScript errors {page.errors}"
