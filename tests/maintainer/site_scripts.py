"""What the site's browser test (test_site.py) runs in each page: the scripts that find what a
reader could miss, and the pages each check treats differently."""

# Everything a learner could miss on a page, as one script run in it: blocks whose content is wider
# than the block (a code line or a formula cut off or behind a scroll bar), brace subscripts in the
# prose that KaTeX never saw, plots with nbconvert's placeholder alt text, in-page links to no element.
READING_PROBLEMS = r"""() => {
  const article = document.querySelector("article");
  const name = element => `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`;
  const cut = [...article.querySelectorAll("pre, pre > code, .katex-display, .highlight-ipynb")]
    .filter(element => element.scrollWidth > element.clientWidth + 1)
    .map(element => `${name(element)} holds ${element.scrollWidth} px in ${element.clientWidth}: `
                    + JSON.stringify(element.textContent.trim().slice(0, 60)));
  const prose = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
    acceptNode: node => node.parentElement.closest("pre, code, .katex, script, style")
      || !node.parentElement.checkVisibility() ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const raw = [];
  while (prose.nextNode()) raw.push(...(prose.currentNode.textContent.match(/\w[_^]\{[^}]*\}/g) || []));
  const placeholder = [...document.images].filter(image => /^No description has been provided/.test(image.alt));
  const links = [...document.querySelectorAll("a[href^='#']")].map(link => decodeURIComponent(link.hash.slice(1)));
  return {title: document.title, header: document.querySelector(".md-header__topic:last-child").innerText.trim(),
          cut, raw: raw.map(text => `raw TeX in the prose: ${text}`),
          alt: placeholder.map(image => `a plot with the placeholder alt text "${image.alt}"`),
          anchors: links.filter(id => id && !document.getElementById(id))
                        .map(id => `a link to #${id}, no such element`)};
}"""

# A block may be wider than a phone only if it scrolls inside a box that is on the screen.
OFF_SCREEN = """() => [...document.querySelectorAll("article .katex-display, article pre")]
  .filter(element => {
    const box = element.getBoundingClientRect();
    const scrolling = node => node && ["auto", "scroll"].includes(getComputedStyle(node).overflowX);
    const scrolls = scrolling(element) || scrolling(element.closest(".arithmatex"));
    return box.left < -1 || box.right > innerWidth + 1 || (element.scrollWidth > element.clientWidth + 1 && !scrolls);
  })
  .map(element => `a formula or code block is cut off: ${JSON.stringify(element.textContent.trim().slice(0, 60))}`)
  .concat(document.documentElement.scrollWidth > innerWidth + 1
          ? [`the page is ${document.documentElement.scrollWidth} px wide`] : [])"""

# Exercise pages: how many lines of the exercise text wrap at the page's width (a wrapped line is
# one span of pymdownx's line_spans taller than one line).
WRAPPED_LINES = """() => {
  const lines = [...document.querySelectorAll("article pre > code > span[id^='__span']")];
  const wrapped = lines.filter(line => line.getBoundingClientRect().height
                                      > 1.5 * parseFloat(getComputedStyle(line).lineHeight));
  return {lines: lines.length, wrapped: wrapped.length,
          examples: wrapped.slice(0, 3).map(line => line.textContent.trim().slice(0, 60))};
}"""

# Prose as rendered: a `$` left over is a formula KaTeX never saw; a one-letter name with a plain
# `_` subscript (p_j) is a formula written as text.
UNTYPESET_PROSE = r"""() => {
  const article = document.querySelector("article");
  const prose = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
    acceptNode: node => node.parentElement.closest("pre, code, .katex, .arithmatex, script, style")
      || !node.parentElement.checkVisibility() ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const dollars = [], subscripts = [];
  while (prose.nextNode()) {
    const text = prose.currentNode.textContent;
    if (text.includes("$")) dollars.push(`a literal $ in the prose: ${JSON.stringify(text.trim().slice(0, 60))}`);
    for (const name of text.match(/(?<![\w.])[A-Za-z]_[A-Za-z0-9](?!\w)/g) || [])
      subscripts.push(`a plain-text subscript in the prose: ${name}`);
  }
  return {dollars, subscripts};
}"""
KNOWN_LITERAL_DOLLARS: set[str] = set()  # pages allowed a literal $ in their prose: none
# The pages whose proofs once wrote p_j as text; the older pages still write some names that way.
SUBSCRIPTS_TYPESET = {"theory/14-block-verification.html", "theory/15-multi-candidate.html"}

# Notebook plots: each one's width on the page, its own (natural) width and the column's.
PLOT_WIDTHS = """() => [...document.querySelectorAll(".jp-OutputArea-output img")].map(image => ({
  shown: image.getBoundingClientRect().width, natural: image.naturalWidth,
  column: document.querySelector("article").clientWidth, alt: image.alt.slice(0, 50)}))"""

# A formula wider than a phone must say so where it is: the scrolling box draws an edge shadow.
SCROLL_CUES = """() => [...document.querySelectorAll("article .katex-display")]
  .filter(formula => formula.scrollWidth > formula.clientWidth + 1)
  .filter(formula => getComputedStyle(formula).backgroundImage === "none")
  .map(formula => `a formula scrolls with no cue: ${JSON.stringify(formula.textContent.trim().slice(0, 50))}`)"""
# The notebooks whose main figures were once shown at about half their size: at 1280 px they must
# show every plot at 80% of its own width or more.
PLOTS_AT_FULL_SIZE = {"notebooks/26-serving-crossover.html", "notebooks/27-adaptive-draft-length.html"}
KNOWN_SHRUNK_PLOTS: set[str] = set()  # notebooks allowed a shrunk figure: none
