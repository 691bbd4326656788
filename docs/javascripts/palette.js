// The colour scheme changes at once when the reader switches it: while the switch is applied,
// <body data-palette-switching> stops every transition (docs/stylesheets/extra.css). Material's
// own rule for this is keyed on an attribute its script also sets at every page load, which made
// the browser restyle every element twice before the page could respond; the build drops that
// rule (anatomia_engine/purge_css.py) and this marks only a reader's switch.
(function () {
  "use strict";

  document.addEventListener("change", function (e) {
    var input = e.target;
    if (!(input instanceof HTMLInputElement) || input.name !== "__palette") return;
    var body = document.body;
    body.setAttribute("data-palette-switching", "");
    // Material applies the scheme in this same event; the mark goes after the next frame is drawn.
    requestAnimationFrame(function () {
      requestAnimationFrame(function () { body.removeAttribute("data-palette-switching"); });
    });
  }, true);
})();
