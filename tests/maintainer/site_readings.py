"""Every page of the built site read once per width: what the site tests check, gathered in one pass.

A visit costs a page load and the browser's wait for the network to fall quiet (half a second at
least), and several tests look at the same pages at the same width: reading each page once per
width, and running every test's script on it then, keeps what each test checks and visits each
page once instead of once per test. ``desktop_reading`` reads every page at 1280 px through the
fenced page of site_browser.py (every request but 127.0.0.1's refused and recorded, JavaScript
errors recorded); ``phone_reading`` reads the theory pages, the notebooks and the SHOWN pages at
375 px on a mobile viewport, fenced the same way. Both take the screenshots of the SHOWN pages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.maintainer.site_browser import SCREENSHOTS, fenced_page
from tests.maintainer.site_scripts import (
    OFF_SCREEN,
    PLOT_WIDTHS,
    READING_PROBLEMS,
    SCROLL_CUES,
    UNTYPESET_PROSE,
    WRAPPED_LINES,
)

TABS = 6  # pages loading at once in one reading (each tab a page of the same fenced context)
SHOWN = {"exercises/08-batched-verifier.html": "pre", "theory/15-multi-candidate.html": ".katex-display",
         "notebooks/03-speedup.html": ".jp-OutputArea-output img"}  # screenshots: the top, then this


def site_pages(site) -> list[str]:
    return sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html")
                  if path.parts[len(site.parts)] not in ("assets", "search") and path.name != "404.html")


def read(page, server, path: str) -> None:
    response = page.goto(f"{server}/{path}", wait_until="load")
    assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
    page.wait_for_load_state("networkidle")


def start_reading(tab, server, path: str) -> None:
    """Navigate ``tab`` to ``path`` and return once the server has answered; the page loads on."""
    response = tab.goto(f"{server}/{path}", wait_until="commit")
    assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"


def screenshots(page, path: str, width: int) -> None:
    name = Path(path).stem.split("-")[0]
    stem = f"{path.split('/')[0].rstrip('s')}-{name}-{width}"
    page.screenshot(path=str(SCREENSHOTS / f"{stem}.png"))
    page.locator(SHOWN[path]).first.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / f"{stem}-detail.png"))


def read_every_page(tabs, server, paths, scripts_for, width: int) -> dict[str, dict]:
    """path -> {script name: its result}, each page visited once, the SHOWN ones photographed.

    The browser's wait for the network to fall quiet is most of a visit, so the tabs take the
    pages a group at a time: every tab starts its page, then each in turn is waited for (the
    network quiet on its own page, the same wait as ``read``), read and photographed while the
    others load beside it."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    found = {}
    for start in range(0, len(paths), len(tabs)):
        group = list(zip(tabs, paths[start: start + len(tabs)]))
        for tab, path in group:
            start_reading(tab, server, path)
        for tab, path in group:
            tab.wait_for_load_state("load")
            tab.wait_for_load_state("networkidle")
            found[path] = {name: tab.evaluate(script) for name, script in scripts_for(path).items()}
            if path in SHOWN:
                screenshots(tab, path, width)
    return found


def desktop_scripts(path: str) -> dict[str, str]:
    scripts = {"reading": READING_PROBLEMS, "prose": UNTYPESET_PROSE}
    if path.startswith("exercises/"):
        scripts["wrapped"] = WRAPPED_LINES
    if path.startswith("notebooks/"):
        scripts["plots"] = PLOT_WIDTHS
    return scripts


def phone_scripts(path: str) -> dict[str, str]:
    scripts = {}
    if path.startswith("theory/") or path in SHOWN:
        scripts["off_screen"] = OFF_SCREEN
    if path.startswith("theory/"):
        scripts["scroll_cues"] = SCROLL_CUES
    if path.startswith("notebooks/"):
        scripts["plots"] = PLOT_WIDTHS
    return scripts


@pytest.fixture(scope="module")
def desktop_reading(browser, server, built_site):
    """(every page's results at 1280 x 900, the JavaScript errors, the refused requests)."""
    context, tabs = fenced_page(browser, {"width": 1280, "height": 900}, tabs=TABS)
    found = read_every_page(tabs, server, site_pages(built_site), desktop_scripts, 1280)
    yield found, list(tabs[0].errors), list(tabs[0].outside)
    context.close()


@pytest.fixture(scope="module")
def phone_reading(browser, server, built_site):
    """The results at 375 x 812 (a phone), for the pages some phone test reads."""
    context, tabs = fenced_page(browser, {"width": 375, "height": 812}, is_mobile=True, tabs=TABS)
    paths = [path for path in site_pages(built_site) if phone_scripts(path)]
    found = read_every_page(tabs, server, paths, phone_scripts, 375)
    yield found, list(tabs[0].errors), list(tabs[0].outside)
    context.close()
