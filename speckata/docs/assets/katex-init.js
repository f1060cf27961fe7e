// Typeset every page's math with the vendored KaTeX (assets/katex/), on load and after Material's
// instant navigation. Theory pages: pymdownx.arithmatex wraps their $...$ and $$...$$ as \(...\)
// and \[...\]; notebook pages: their Markdown cells keep Jupyter's $...$ and $$...$$.
// Code (pre, code) is never touched, so a "$" in a shell example stays a dollar.
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "\\[", right: "\\]", display: true },
      { left: "$", right: "$", display: false },
      { left: "\\(", right: "\\)", display: false },
    ],
    throwOnError: false,
  });
});
