"""What the hook changes in a page's HTML after MkDocs (and mkdocs-jupyter) rendered it.

- A plot's alt text says what the plot shows, read from the cell that drew it (its titles, axis
  labels and line labels, under the section heading), instead of nbconvert's "No description has
  been provided for this image".
- A file of the kata named as code in a theory page or a notebook (`exercises/ex03_speedup.py`,
  `theory/03-speedup.md`, `notebooks/03-speedup.ipynb`) links to its page on the site.
- A notebook's table of contents points at the ids its headings really have (mkdocs-jupyter drops
  inline code from a heading when it makes the contents' anchor, nbconvert keeps it in the id).
"""

from __future__ import annotations

import posixpath
import re

from bs4 import BeautifulSoup

from speckata.manifest import Exercise

DEFAULT_ALT = "No description has been provided for this image"
STRING = r"""\(\s*f?(["'])(.*?)\1"""  # the first argument when it is a string literal (or an f-string)
PLOT_TEXT = {
    "title": re.compile(r"(?:set_title|suptitle|plt\.title)" + STRING),
    "x axis": re.compile(r"(?:set_xlabel|plt\.xlabel)" + STRING),
    "y axis": re.compile(r"(?:set_ylabel|plt\.ylabel)" + STRING),
    "labels": re.compile(r"""\blabel\s*=\s*f?(["'])(.*?)\1"""),
}


def readable(literal: str) -> str:
    """A label as the reader sees it: an f-string's fields become an ellipsis, TeX dollars go."""
    return re.sub(r"\{[^{}]*\}", "…", literal).replace("$", "").strip()


def describe_plot(code: str, heading: str) -> str:
    """One sentence from the drawing code: "Plot (section "X"): title T; x axis A; y axis B; labels L1, L2"."""
    parts = []
    for name, pattern in PLOT_TEXT.items():
        found = list(dict.fromkeys(readable(match.group(2)) for match in pattern.finditer(code)))
        found = [text for text in found if text]
        if found:
            parts.append(f"{name} {', '.join(found[:6])}")
    where = f' (section "{heading}")' if heading else ""
    return f"Plot{where}: {'; '.join(parts)}" if parts else f"Plot drawn by the code cell above{where}"


def describe_plots(html: str) -> str:
    """Replace nbconvert's default alt text of every plot by a description of it."""
    if DEFAULT_ALT not in html:
        return html
    soup = BeautifulSoup(html, "html.parser")
    heading = ""
    for cell in soup.select(".jp-Cell"):
        headings = cell.select("h1, h2, h3, h4")
        if headings:
            heading = headings[-1].get_text(" ", strip=True).rstrip("¶").strip()
        images = cell.select(f'img[alt="{DEFAULT_ALT}"]')
        if not images:
            continue
        source = cell.select_one(".jp-InputArea pre")
        description = describe_plot(source.get_text() if source else "", heading)
        for number, image in enumerate(images, start=1):
            image["alt"] = description + (f" (figure {number} of {len(images)})" if len(images) > 1 else "")
    return str(soup)


def file_pages(exercises: list[Exercise], theory_page, exercise_page, notebook_page) -> dict[str, str]:
    """Each file of the kata that has a page on the site, by its repository path: that page."""
    pages = {}
    for exercise in exercises:
        pages[f"exercises/{exercise.file}"] = exercise_page(exercise)
        pages[exercise.theory] = theory_page(exercise)
        pages[exercise.notebook] = notebook_page(exercise)
    return pages


def link_file_names(html: str, page_path: str, pages: dict[str, str]) -> str:
    """`exercises/ex03_speedup.py` named as inline code becomes a link to that exercise's page.

    page_path is where this page sits in the docs folder (theory/03-speedup.md); links are relative
    so the site still opens from the file system. Code blocks are left alone (their <code> holds
    highlighted spans, never a bare path).
    """
    here = posixpath.dirname(page_path)

    def link(match: re.Match) -> str:
        target = pages.get(match.group(1) or "")  # group 1 is empty when the match is a whole link
        if target is None or target == page_path:
            return match.group(0)
        href = posixpath.relpath(re.sub(r"\.(md|ipynb)$", ".html", target), here or ".")
        return f'<a href="{href}">{match.group(0)}</a>'

    # Links are matched whole so that code already inside one is not linked twice.
    return re.sub(r"<a\b[^>]*>.*?</a>|<code>([\w./-]+)</code>", link, html, flags=re.DOTALL)


def fix_toc_anchors(toc, html: str) -> None:
    """Point each entry of the page's contents whose anchor no element has at the heading it names."""
    ids = re.findall(r'<h[1-6][^>]* id="([^"]+)"', html)
    present = set(re.findall(r' id="([^"]+)"', html))

    def visit(items) -> None:
        for item in items:
            if item.id not in present:
                candidates = [heading for heading in ids if heading.startswith(item.id)]
                if len(candidates) == 1:
                    item.id = candidates[0]
            visit(item.children)

    visit(toc)
