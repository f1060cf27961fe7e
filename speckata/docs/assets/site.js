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
