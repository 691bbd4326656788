// The theme switch. Material's own palette script is not used (anatomia_engine/theme/partials/
// palette.html says why, and sets the starting scheme while the header is parsed); this applies
// a reader's switch: the chosen option's colours on <body>, the other toggle shown, the choice
// stored under Material's key, and Enter on the focused option moves to the next one, as
// Material's script does. While the switch is applied, <body data-palette-switching> stops every
// transition (docs/stylesheets/extra.css), so the colours change at once.
(function () {
  "use strict";
  var palette = window.anatomiaPalette;
  if (!palette || !palette.inputs.length) return;
  var inputs = Array.prototype.slice.call(palette.inputs);
  var form = inputs[0].form;
  // the toggle, and the browser's bar in the header's colour: the page is styled by now
  palette.showToggle();
  palette.fillThemeColor();

  form.addEventListener("change", function (e) {
    var index = inputs.indexOf(e.target);
    if (index < 0) return;
    var body = document.body;
    body.setAttribute("data-palette-switching", "");
    palette.apply(index);
    palette.showToggle();
    palette.fillThemeColor();
    // the mark goes after the next frame is drawn in the new colours
    requestAnimationFrame(function () {
      requestAnimationFrame(function () { body.removeAttribute("data-palette-switching"); });
    });
  });

  form.addEventListener("keydown", function (e) {
    if (e.key !== "Enter") return;
    var next = inputs[(palette.current() + 1) % inputs.length];
    next.click();
    next.focus();
  });
})();
