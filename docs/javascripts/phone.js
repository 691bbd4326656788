// Phones and keyboards.
//
// 1. Boxes that scroll sideways (a formula, a table or a printed output wider than the column)
//    get a place in the tab order and a name, so a keyboard can scroll them too; boxes that fit
//    get nothing (no useless tab stops). A wide table's wrapper also says which of its sides has
//    more columns (data-more: left, right or both), for the fade that shows it. Checked again when the window is resized, and for the
//    boxes in a <details> when it is opened.
//
// 2. Figures full-size on a phone: each figure gets a "Powiększ" button (a tap on the figure does
// the same) that opens the picture in a dialog that scrolls both ways, at its own size or larger:
// large enough that its smallest label is at least MIN_TEXT CSS px (read from the SVG). The dialog shows the copy of the picture
// the page shows (light or dark), closes with its button, Escape or a tap outside the picture.
(() => {
  "use strict";

  let dialog = null;
  const MIN_TEXT = 10;

  // Width in CSS px at which the SVG's smallest text is MIN_TEXT px (null: not an SVG we can read).
  function legibleWidth(src) {
    return fetch(src)
      .then((r) => (r.ok ? r.text() : ""))
      .then((svg) => {
        const box = /viewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"/.exec(svg);
        const sizes = [];
        svg.replace(/font-size:\s*([\d.]+)px/g, (_, n) => {
          sizes.push(parseFloat(n));
        });
        if (!box || !sizes.length) return null;
        const viewWidth = parseFloat(box[1]);
        return Math.ceil(viewWidth * Math.max(4 / 3, MIN_TEXT / Math.min.apply(null, sizes)));
      })
      .catch(() => null);
  }

  function visibleImage(figure) {
    const imgs = figure.querySelectorAll("img");
    for (let i = 0; i < imgs.length; i++) if (imgs[i].offsetParent !== null) return imgs[i];
    return imgs[0] || null;
  }

  function ensureDialog() {
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.className = "fig-zoom";
    dialog.setAttribute("aria-label", "Rysunek w pełnym rozmiarze");
    const close = document.createElement("button");
    close.type = "button";
    close.className = "fig-zoom__close md-button";
    close.textContent = "Zamknij";
    close.addEventListener("click", () => {
      dialog.close();
    });
    const frame = document.createElement("div");
    frame.className = "fig-zoom__frame";
    dialog.appendChild(close);
    dialog.appendChild(frame);
    dialog.addEventListener("click", (e) => {
      if (e.target === dialog) dialog.close();
    });
    dialog.addEventListener("close", () => {
      frame.textContent = "";
    });
    document.body.appendChild(dialog);
    return dialog;
  }

  function open(figure) {
    const img = visibleImage(figure);
    if (!img) return;
    const d = ensureDialog();
    const copy = document.createElement("img");
    copy.src = img.currentSrc || img.src;
    copy.alt = img.alt;
    copy.className = "fig-zoom__img";
    const frame = d.querySelector(".fig-zoom__frame");
    frame.textContent = "";
    frame.appendChild(copy);
    d.showModal();
    legibleWidth(copy.src).then((width) => {
      if (width) copy.style.width = `${width}px`;
    });
  }

  const SCROLLERS = [
    [".arithmatex", "wzór, przewijany w bok"],
    [".md-typeset__scrollwrap", "tabela, przewijana w bok"],
    [".jp-OutputArea-output pre", "wynik, przewijany w bok"],
  ];

  function scrollers(root) {
    // All sizes are read first, then attributes written: interleaving the two would make the
    // browser lay the page out again for every box.
    const boxes = [];
    SCROLLERS.forEach((pair) => {
      root.querySelectorAll(`article ${pair[0]}`).forEach((box) => {
        // A box in a closed <details> is not laid out: measuring it would force a layout of its
        // own for each one (30 on the post, most of this script's cost). Measured when opened.
        if (box.closest("details:not([open])")) return;
        const wide = box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== "visible";
        boxes.push([box, pair[1], wide, wide ? sides(box) : ""]);
      });
    });
    boxes.forEach((item) => {
      const box = item[0];
      const wide = item[2];
      if (box.classList.contains("md-typeset__scrollwrap")) edges(box, item[3]);
      if (wide && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", item[1]);
        box.dataset.scrollFocus = "1";
      } else if (!wide && box.dataset.scrollFocus) {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
        delete box.dataset.scrollFocus;
      }
    });
  }

  // Which sides of a wide table have more to show (extra.css fades those edges).
  function sides(box) {
    const left = box.scrollLeft > 1;
    const right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    return left && right ? "both" : left ? "left" : right ? "right" : "";
  }

  function mark(box, more) {
    if (more) box.dataset.more = more;
    else delete box.dataset.more;
  }

  function edges(box, more) {
    mark(box, more);
    if (more && !box.dataset.edges) {
      box.dataset.edges = "1";
      box.addEventListener(
        "scroll",
        () => {
          mark(box, sides(box));
        },
        { passive: true },
      );
    }
  }

  // "toggle" does not bubble: listened to while capturing.
  document.addEventListener(
    "toggle",
    (e) => {
      if (e.target.open) scrollers(e.target);
    },
    true,
  );

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      scrollers(document);
    }, 150);
  });

  // Measuring boxes forces a layout: done once the page has loaded and the browser is idle, so it
  // never holds up the first paint.
  function whenIdle(task) {
    const run = () => {
      if (window.requestIdleCallback) window.requestIdleCallback(task, { timeout: 2000 });
      else setTimeout(task, 200);
    };
    if (document.readyState === "complete") run();
    else window.addEventListener("load", run, { once: true });
  }

  function init(root) {
    whenIdle(() => {
      scrollers(root);
    });
    root
      .querySelectorAll("article figure.computed-figure, article .jupyter-wrapper .jp-OutputArea-output")
      .forEach((figure) => {
        if (figure.dataset.zoom || !figure.querySelector("img")) return;
        figure.dataset.zoom = "1";
        const button = document.createElement("button");
        button.type = "button";
        button.className = "fig-zoom__open";
        button.textContent = "Powiększ";
        button.setAttribute("aria-label", "Powiększ rysunek");
        button.addEventListener("click", () => {
          open(figure);
        });
        figure.appendChild(button);
        figure.querySelectorAll("img").forEach((img) => {
          img.addEventListener("click", () => {
            open(figure);
          });
        });
      });
  }

  if (typeof document$ !== "undefined" && document$.subscribe) {
    document$.subscribe(() => {
      init(document);
    });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => {
      init(document);
    });
  } else {
    init(document);
  }
})();
