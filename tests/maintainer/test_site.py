"""The theory as a site: built in strict mode by `kata docs --build-only`, then checked in a real browser.

Headless Chromium (Debian's `chromium`, driven by Playwright's Python package through its
executable path) visits the home page, a theory page with display math and a notebook page,
served from 127.0.0.1 with every other address refused: the math must be typeset by the KaTeX the
site ships (its elements exist, no raw `$$` is left), the notebook's plot image must load, and no
page may ask the network for anything. Screenshots go to build/site-screenshots/ (kept by CI).

Without the docs extra, Playwright or Chromium the browser tests skip with the reason, unless
SPECKATA_REQUIRE_BROWSER=1 (what .ci/run sets), where they fail instead.
"""

from __future__ import annotations

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

from speckata.docs.pages import navigation
from speckata.manifest import load_manifest, repo_root

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
def built_site():
    missing = [name for name in ("mkdocs", "material", "mkdocs_jupyter") if importlib.util.find_spec(name) is None]
    if missing:
        unavailable(f"the docs extra is not installed ({', '.join(missing)}): pip install -e '.[docs]'")
    started = time.monotonic()
    run = subprocess.run([str(KATA), "docs", "--build-only"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    seconds = time.monotonic() - started
    assert run.returncode == 0, f"kata docs --build-only failed:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
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


@pytest.fixture
def page(browser, server):
    """A page that may only talk to the local server; every other request is refused and recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    outside: list[str] = []

    def route(request_route):
        host = urlparse(request_route.request.url).hostname
        if request_route.request.url.startswith("data:") or host == "127.0.0.1":
            return request_route.continue_()
        outside.append(request_route.request.url)
        return request_route.abort()

    context.route("**/*", route)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.outside, opened.errors = outside, errors
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


def test_strict_mode_is_on_and_the_navigation_follows_the_ladder():
    config = (ROOT / "mkdocs.yml").read_text()
    assert "\nstrict: true" in config and "not_found: warn" in config
    sections = [entry for entry in navigation() if "Home" not in entry]
    listed = [title.split()[0] for section in sections for exercise in next(iter(section.values()))
              for title in exercise]
    assert listed == [exercise.number for exercise in load_manifest()], listed


BREAKING_HOOK = """
def on_files(files, config):
    files.remove(files.get_file_from_path("notebooks/02-acceptance-rate.ipynb"))  # a page the ladder lists goes missing
    return files

def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == "index.md":
        markdown += "\\n\\n[a page that is not there](theory/99-no-such-page.md)\\n"  # a broken link
    return markdown
"""


def test_the_strict_build_fails_on_a_broken_link_and_a_missing_page(built_site, tmp_path):
    """The same configuration with one link broken and one listed page taken away must not build."""
    (tmp_path / "breaking_hook.py").write_text(BREAKING_HOOK)
    (tmp_path / "mkdocs.yml").write_text("\n".join([
        f"INHERIT: {ROOT / 'mkdocs.yml'}",
        f"docs_dir: {tmp_path / 'site-src'}", f"site_dir: {tmp_path / 'site'}",
        f"hooks: [{ROOT / 'speckata' / 'docs' / 'hooks.py'}, {tmp_path / 'breaking_hook.py'}]", "watch: []", ""]))
    (tmp_path / "site-src").mkdir()
    run = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "mkdocs", "build", "--config-file",
                          str(tmp_path / "mkdocs.yml")], cwd=ROOT, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert run.returncode != 0, "a broken link and a missing page built without complaint"
    assert "theory/99-no-such-page.md" in run.stderr, run.stderr[-3000:]
    assert "notebooks/02-acceptance-rate.ipynb" in run.stderr, run.stderr[-3000:]


def test_home_page_lists_the_ladder_in_order(page, server):
    visit(page, server, "index.html", "home.png")
    entries = [" ".join(text.split()) for text in page.locator("nav.md-nav--primary .md-nav__link").all_text_contents()]
    numbers = list(dict.fromkeys(text.split()[0] for text in entries if text[:2].isdigit()))  # in order, once each
    assert numbers == [exercise.number for exercise in load_manifest()], entries
    assert page.locator("table a[href='theory/01-speculative-step.html']").count() == 1


def test_theory_page_display_math_is_typeset_by_the_shipped_katex(page, server):
    visit(page, server, THEORY_WITH_DISPLAY_MATH, "theory-02-acceptance-rate.png")
    page.wait_for_selector(".katex-display", timeout=15_000)
    assert page.locator(".katex-display").count() >= 2, "the page's two display formulas were not typeset"
    assert page.locator(".katex").count() > page.locator(".katex-display").count(), "no inline math typeset"
    assert page.locator(".katex-error").count() == 0, page.locator(".katex-error").all_inner_texts()
    text = page.locator("article").inner_text()
    assert "$$" not in text and "\\frac" not in text, "raw TeX left on the page"
    scripts = page.eval_on_selector_all("script[src]", "nodes => nodes.map(n => n.src)")
    assert any(src.endswith("assets/katex/katex.min.js") for src in scripts), scripts


def test_notebook_page_shows_its_committed_outputs_and_plots(page, server):
    visit(page, server, NOTEBOOK, "notebook-02-acceptance-rate.png")
    images = page.locator(".jp-OutputArea-output img")
    assert images.count() >= 3, "the notebook's three plots are not on the page"
    images.first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "notebook-02-acceptance-rate-plot.png"))
    loaded = page.eval_on_selector_all(
        ".jp-OutputArea-output img", "nodes => nodes.map(n => n.complete && n.naturalWidth > 0)")
    assert loaded and all(loaded), f"a plot image did not load: {loaded}"
    text = page.locator("article").inner_text()
    assert "alpha per position" in text and "[0.7, 0.8]" in text, "the first cell's committed output is not shown"
