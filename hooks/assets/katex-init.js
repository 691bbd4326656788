// Typeset the math that pymdownx.arithmatex (generic mode) leaves in the page.
// Runs on every page load and, with Material's instant navigation, on every page switch.
(function () {
  function typeset(root) {
    renderMathInElement(root || document.body, {
      delimiters: [
        { left: "$$", right: "$$", display: true },
        { left: "\\[", right: "\\]", display: true },
        { left: "\\(", right: "\\)", display: false },
      ],
      throwOnError: false,
      errorColor: "#d32f2f",
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function () { typeset(document.body); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  }
})();
