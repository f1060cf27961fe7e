// Every line of code keeps its own hanging indent when it wraps (site.css): --indent is the
// line's leading spaces. Notebook cells come as one block of highlighted text, so first each of
// their lines becomes a span of its own, as pymdownx's line_spans makes them on the other pages.
function splitNotebookLines(pre) {
  const lines = [[]];
  for (const node of [...pre.childNodes]) {
    node.textContent.split("\n").forEach((part, index) => {
      if (index > 0) lines.push([]);
      if (!part) return;
      const piece = node.nodeType === Node.TEXT_NODE ? document.createTextNode(part) : node.cloneNode(false);
      piece.textContent = part;  // Pygments' token spans are flat: the text is all they hold
      lines[lines.length - 1].push(piece);
    });
  }
  if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();
  pre.textContent = "";
  lines.forEach((pieces, index) => {
    const line = document.createElement("span");
    line.className = "speckata-line";
    line.append(...pieces, index < lines.length - 1 ? "\n" : "");
    pre.append(line);
  });
}

document$.subscribe(() => {
  document.querySelectorAll(".jupyter-wrapper .highlight-ipynb pre, .jupyter-wrapper .jp-RenderedText pre")
    .forEach(pre => { if (!pre.querySelector(".speckata-line")) splitNotebookLines(pre); });
  document.querySelectorAll(".md-typeset pre > code > span[id^='__span'], .jupyter-wrapper pre > .speckata-line")
    .forEach(line => {
      const leading = line.textContent.match(/^ */)[0].length;
      line.style.setProperty("--indent", `${leading}ch`);
    });
});

// Opened from the file system (file://), the browser will not let the search worker load its index,
// and Material's search then does nothing. Say so where the reader types, and how to get it.
document$.subscribe(() => {
  if (location.protocol !== "file:") return;
  const input = document.querySelector(".md-search__input");
  if (input) input.placeholder = "Search needs the site served: kata docs";
  const meta = document.querySelector(".md-search-result__meta");
  if (meta) {
    meta.textContent = "Search works only when the site is served: run `kata docs` and open " +
      "http://127.0.0.1:8000/ (a page opened from the file system cannot load the search index).";
  }
});
