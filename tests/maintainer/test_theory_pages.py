"""Every theory page's numbers are computed: its Markdown examples run as doctests."""

from __future__ import annotations

import doctest

import pytest

from speckata.manifest import repo_root

PAGES = sorted((repo_root() / "theory").glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_theory_page_examples(page):
    result = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{page.name}: {result.failed} of {result.attempted} examples failed"
    assert result.attempted > 0, f"{page.name} has no executed examples"
