"""The theory as a site: built in strict mode by `kata docs --build-only`, then checked in a real browser.

Headless Chromium (Debian's `chromium`, driven by Playwright's Python package through its
executable path) visits the home page, a theory page with display math and a notebook page,
served from 127.0.0.1 with every other address refused: the math must be typeset by the KaTeX the
site ships (its elements exist, no raw `$$` is left), the notebook's plot image must load, and no
page may ask the network for anything. Screenshots go to build/site-screenshots/ (kept by CI).

Then every page of the site is read as a learner would at 1280 px: no line of a code block (the
exercise texts are one) or of a display formula runs past its box, no brace subscript (`x_{k-1}`)
is left untypeset in the prose, every page has its own title, every plot has alt text of its own,
and every in-page link (`#anchor`) lands on an element; at 375 px (a phone) no theory page's
formula runs off the screen. Screenshots of exercise 08, theory 15 and notebook 03 at both widths
go to build/site-screenshots/ too; opened from the file system, search must say it needs a server.
Exercise texts wrap on at most 2% of their lines; no page shows a literal `$`, and pages 14-15 no
plain-text subscript; every notebook plot fills the column (or its own width) at both widths and is
not shrunk below 80% at 1280 px; on a phone, a formula wider than the screen shows a scroll shadow;
no two navigation sections share a name. The scripts they run are in site_scripts.py. The
whole-site checks read each page once per width (site_readings.py: every page at 1280 px, the
pages a phone test needs at 375 px) and each test asserts on what that reading found; the
reading at 1280 px also requires that no page asked the network for anything.

Without the docs extra, Playwright or Chromium the browser tests skip with the reason, unless
SPECKATA_REQUIRE_BROWSER=1 (what .ci/run sets), where they fail instead.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from speckata.docs.pages import navigation
from speckata.manifest import load_manifest
from tests.maintainer.site_browser import (  # noqa: F401  (fixtures: pytest finds them by name)
    NOTEBOOK,
    ROOT,
    SCREENSHOTS,
    THEORY_WITH_DISPLAY_MATH,
    browser,
    built_site,
    page,
    server,
    visit,
)
from tests.maintainer.site_readings import SHOWN, desktop_reading, phone_reading, read  # noqa: F401  (fixtures)
from tests.maintainer.site_scripts import (
    KNOWN_LITERAL_DOLLARS,
    KNOWN_SHRUNK_PLOTS,
    PLOTS_AT_FULL_SIZE,
    SUBSCRIPTS_TYPESET,
)


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
        f"hooks: [{ROOT / 'speckata' / 'docs' / 'hooks.py'}, {tmp_path / 'breaking_hook.py'}]", "watch: []",
        f"theme: {{custom_dir: {ROOT / 'speckata' / 'docs' / 'overrides'}}}", ""]))  # INHERIT moves relative paths
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


def test_every_page_shows_every_line_and_names_its_exercise(desktop_reading):
    pages, errors, outside = desktop_reading
    problems, titles = [], {}
    for path, results in pages.items():
        found = results["reading"]
        problems += [f"{path}: {problem}" for key in ("cut", "raw", "alt", "anchors") for problem in found[key]]
        titles.setdefault(found["title"], []).append(path)
        if path != "index.html" and found["header"] not in found["title"]:
            problems.append(f"{path}: the header says {found['header']!r}, the title {found['title']!r}")
    problems += [f"{len(paths)} pages share the title {title!r}: {paths[:3]}"
                 for title, paths in titles.items() if len(paths) > 1]
    assert not errors, f"JavaScript errors {errors}"
    assert not outside, f"pages asked the network for {outside[:5]}"
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])
    assert len(titles) >= 3 * len(load_manifest()), sorted(titles)


def test_on_a_phone_no_formula_or_code_runs_off_the_screen(phone_reading):
    pages, errors, _ = phone_reading
    problems = [f"{path}: {problem}" for path, results in pages.items() for problem in results.get("off_screen", [])]
    assert set(SHOWN) <= {path for path, results in pages.items() if "off_screen" in results}, "a SHOWN page was not read"
    assert not errors, f"JavaScript errors on a phone {errors}"
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_footer_and_search_name_the_exercise(page, server, built_site):
    read(page, server, "theory/08-batched-verifier.html")
    footer = " ".join(page.locator(".md-footer__link").all_inner_texts())
    assert "07 torch step: notebook" in footer and "08 batched verifier: exercise" in footer, footer
    hits = json.loads((built_site / "search" / "search_index.json").read_text())["docs"]
    titles = {hit["title"] for hit in hits if "#" not in hit["location"]}
    assert {"Theory", "Exercise", "Notebook"}.isdisjoint(titles), "a search hit names no exercise"
    assert "08 batched verifier: notebook" in titles, sorted(titles)
    assert page.locator("form[data-md-component=palette] input").count() == 2, "no light/dark toggle"


def test_search_opened_from_the_file_system_says_it_needs_a_server(browser, built_site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "data:"))
                  else route.abort())
    opened = context.new_page()
    opened.goto((built_site / "theory" / "01-speculative-step.html").as_uri(), wait_until="load")
    placeholder = opened.locator(".md-search__input").get_attribute("placeholder")
    context.close()
    assert placeholder and "kata docs" in placeholder, placeholder


def test_home_page_has_the_quick_start_and_the_files_are_links(page, server):
    read(page, server, "index.html")
    assert page.locator("h2#quick-start").count() == 1, "the home page has no quick start"
    assert "bash scripts/setup.sh" in page.locator("article").inner_text()
    read(page, server, "theory/03-speedup.html")
    assert page.locator("a[href='../exercises/03-speedup.html'] code").count() >= 1, "the exercise file is not a link"


def test_exercise_texts_wrap_few_lines(desktop_reading):
    """At 1280 px the exercise texts (no contents column beside them) fit: at most 2% of their
    lines wrap over all exercise pages (with the column, half of them did)."""
    lines = wrapped = 0
    examples = []
    for path, results in desktop_reading[0].items():
        if "wrapped" not in results:
            continue
        found = results["wrapped"]
        lines, wrapped = lines + found["lines"], wrapped + found["wrapped"]
        examples += [f"{path}: {text}" for text in found["examples"]]
    assert lines > 1000, f"only {lines} exercise text lines found"
    assert wrapped <= 0.02 * lines, f"{wrapped} of {lines} exercise text lines wrap:\n" + "\n".join(examples[:20])


def test_no_formula_is_left_as_text(desktop_reading):
    """No page shows a literal $ (a formula KaTeX never saw), and pages 14 and 15 write no
    one-letter subscript (p_j) as plain text."""
    problems = []
    for path, results in desktop_reading[0].items():
        found = results["prose"]
        if path not in KNOWN_LITERAL_DOLLARS:
            problems += [f"{path}: {problem}" for problem in found["dollars"]]
        if path in SUBSCRIPTS_TYPESET:
            problems += [f"{path}: {problem}" for problem in found["subscripts"]]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("width", [1280, 375])
def test_notebook_plots_use_the_column(desktop_reading, phone_reading, width):
    """Every plot is as wide as the column (or its own width, if narrower), and at 1280 px no plot of
    notebook 26 is shrunk below 80% of its own width, where its legends would be a few pixels high."""
    pages = (desktop_reading if width > 1000 else phone_reading)[0]
    notebooks = {path: results["plots"] for path, results in pages.items() if path.startswith("notebooks/")}
    assert len(notebooks) >= 3, f"only {len(notebooks)} notebook pages read at {width} px"
    problems = []
    for path, plots in notebooks.items():
        for plot in plots:
            if plot["shown"] < min(plot["natural"], 0.97 * plot["column"]) - 1:
                problems.append(f"{path}: a plot {plot['shown']:.0f} px wide in a column of {plot['column']} ({plot['alt']})")
            if width > 1000 and path in PLOTS_AT_FULL_SIZE - KNOWN_SHRUNK_PLOTS and plot["shown"] < 0.8 * plot["natural"]:
                problems.append(f"{path}: a plot shown at {plot['shown'] / plot['natural']:.0%} of its size ({plot['alt']})")
    assert not problems, f"{len(problems)} problems at {width} px:\n" + "\n".join(problems[:40])


def test_on_a_phone_a_formula_that_scrolls_shows_it(phone_reading):
    problems = [f"{path}: {problem}" for path, results in phone_reading[0].items()
                for problem in results.get("scroll_cues", [])]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_the_navigation_names_each_section_once():
    titles = [next(iter(entry)) for entry in navigation()]
    assert len(titles) == len(set(titles)), titles
