// Where a number comes from: a popover for every computed number in prose.
//
// The engine writes each number as
//   <span class="num" tabindex="0" data-exact="0,6442755" data-what="…"
//         data-source="figures_src/x.py" data-function="f">0,64</span>
// or, for a number quoted from a publication, with data-cite="Dao (2023)" instead of
// data-source/data-function. One popover element serves the whole page: it opens on hover,
// on keyboard focus and on tap, closes with Escape, a tap elsewhere or when the pointer or the
// focus leaves, and is the element's aria-describedby, so a screen reader hears the number once
// (its text) and then what the popover says.
(() => {
  "use strict";

  const TIP_ID = "num-tip";
  let tip = null;
  let current = null;
  let shownAt = 0;
  let hideTimer = null;

  function text(tag, cls, value) {
    const el = document.createElement(tag);
    el.className = cls;
    el.textContent = value;
    return el;
  }

  function ensureTip() {
    if (tip) return tip;
    tip = document.createElement("div");
    tip.id = TIP_ID;
    tip.className = "num-tip";
    tip.setAttribute("role", "tooltip");
    tip.hidden = true;
    tip.addEventListener("pointerenter", () => {
      clearTimeout(hideTimer);
    });
    tip.addEventListener("pointerleave", (e) => {
      if (e.pointerType === "mouse") hideSoon();
    });
    document.body.appendChild(tip);
    return tip;
  }

  // Older pages carried the provenance in a title attribute; read it once and drop it, so the
  // browser's own tooltip and a screen reader do not repeat it.
  function adopt(el) {
    if (el.hasAttribute("title")) {
      if (!el.dataset.what && !el.dataset.source && !el.dataset.cite) el.dataset.legacy = el.title;
      el.removeAttribute("title");
    }
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
    el.setAttribute("aria-describedby", TIP_ID);
  }

  function fill(el) {
    const t = ensureTip();
    const d = el.dataset;
    t.textContent = "";
    const exact = d.exact || el.textContent.trim();
    const first = text("span", "num-tip__value", exact);
    t.appendChild(first);
    if (d.what) t.appendChild(text("span", "num-tip__what", d.what));
    if (d.cite) {
      t.appendChild(text("span", "num-tip__where", `z pracy ${d.cite}`));
    } else if (d.source) {
      // What a reader needs first; the module is a detail for contributors, in small print.
      t.appendChild(text("span", "num-tip__where", "Policzone przy budowie strony, nie wpisane ręcznie."));
      const code = text("span", "num-tip__code", "kod: ");
      code.appendChild(text("code", "", d.source + (d.function ? `, ${d.function}()` : "")));
      t.appendChild(code);
    } else if (d.legacy) {
      t.appendChild(text("span", "num-tip__where", d.legacy));
    }
  }

  function place(el) {
    const r = el.getBoundingClientRect();
    const t = tip;
    const margin = 8;
    const vw = document.documentElement.clientWidth;
    t.style.left = "0px";
    t.style.top = "0px";
    const w = t.offsetWidth;
    const h = t.offsetHeight;
    const left = Math.min(Math.max(margin, r.left + r.width / 2 - w / 2), Math.max(margin, vw - w - margin));
    let top = r.bottom + 6;
    if (top + h > window.innerHeight - margin && r.top - h - 6 > margin) top = r.top - h - 6;
    t.style.left = `${Math.round(left + window.scrollX)}px`;
    t.style.top = `${Math.round(top + window.scrollY)}px`;
  }

  function show(el) {
    clearTimeout(hideTimer);
    if (current === el && !tip.hidden) return;
    if (current && current !== el) current.classList.remove("num--open");
    current = el;
    fill(el);
    tip.hidden = false;
    el.classList.add("num--open");
    place(el);
    shownAt = Date.now();
  }

  function hide() {
    clearTimeout(hideTimer);
    if (tip) tip.hidden = true;
    if (current) current.classList.remove("num--open");
    current = null;
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, 300);
  }

  function numOf(target) {
    return target?.closest ? target.closest(".num") : null;
  }

  function init(root) {
    ensureTip();
    root.querySelectorAll(".num").forEach(adopt);
  }

  document.addEventListener("focusin", (e) => {
    const el = numOf(e.target);
    if (el) show(el);
  });
  document.addEventListener("focusout", (e) => {
    if (numOf(e.target) === current) hide();
  });
  document.addEventListener("pointerover", (e) => {
    if (e.pointerType !== "mouse") return;
    const el = numOf(e.target);
    if (el) show(el);
  });
  document.addEventListener("pointerout", (e) => {
    if (e.pointerType !== "mouse") return;
    const el = numOf(e.target);
    if (el && el === current && !el.contains(e.relatedTarget)) hideSoon();
  });
  document.addEventListener("click", (e) => {
    const el = numOf(e.target);
    if (el) {
      // A tap focuses the number (which opens the popover) and then clicks it: that click must
      // not close it again; a second tap on the same number does.
      if (el === current && !tip.hidden && Date.now() - shownAt > 400) hide();
      else show(el);
    } else if (current && !tip?.contains(e.target)) {
      hide();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && current && !tip.hidden) {
      hide();
    }
  });
  window.anatomiaProvenance = { init: init };

  window.addEventListener("resize", () => {
    if (current) place(current);
  });

  if (typeof document$ !== "undefined" && document$.subscribe) {
    document$.subscribe(() => {
      hide();
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
