// Closed boxes load when opened.
//
// The build (anatomia_engine/lazy_details.py) moved the body of each large closed <details> into
// a file beside the page and left in its place a link to that file:
//   <p class="lazy-details" data-lazy-ids="fnref:3"><a href="ramka-….html">Pokaż treść tej ramki</a></p>
// When the reader opens the box, this script fetches the file and moves the children of its
// .lazy-details__body into the box in place of the link (once), then tells provenance.js
// ("anatomia:content"), which gives the numbers inside their popovers. (What Material's script
// does at load to code blocks and tables, the build did in the file already.) A link or an
// address naming an id inside a body not yet loaded (data-lazy-ids) opens and loads that box.
// Printing loads every box before the page is laid out for print (Material opens them all).
(function () {
  "use strict";

  var HOLDER = "p.lazy-details";

  function src(holder) {
    return holder.querySelector("a").getAttribute("href");
  }

  function insert(holder, text) {
    var box = holder.parentNode;
    if (!box) return;                      // put in already (printing loaded it meanwhile)
    var doc = new DOMParser().parseFromString(text, "text/html");
    var body = doc.querySelector("article .lazy-details__body");
    if (!body) throw new Error(src(holder) + ": no .lazy-details__body");
    var nodes = document.createDocumentFragment();
    while (body.firstChild) nodes.appendChild(document.adoptNode(body.firstChild));
    nodes.querySelectorAll('[href^="./#"]').forEach(function (a) {
      a.setAttribute("href", a.getAttribute("href").slice(2));   // an in-page link again
    });
    box.replaceChild(nodes, holder);
    box.removeAttribute("aria-busy");
    box.dispatchEvent(new CustomEvent("anatomia:content", { bubbles: true }));
  }

  function load(holder) {
    if (holder.loading) return holder.loading;
    var box = holder.parentNode;
    var link = holder.querySelector("a");
    box.setAttribute("aria-busy", "true");
    holder.setAttribute("role", "status");
    holder.textContent = "Wczytywanie…";
    holder.loading = fetch(link.getAttribute("href"))
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (text) { insert(holder, text); })
      .catch(function () {
        holder.loading = null;
        box.removeAttribute("aria-busy");
        link.textContent = "Otwórz ją jako osobną stronę";
        holder.textContent = "Nie udało się wczytać treści tej ramki. ";
        holder.append(link, ".");
      });
    return holder.loading;
  }

  function loadNow(holder) {               // printing: the page is laid out right after this
    var request = new XMLHttpRequest();
    try {
      request.open("GET", src(holder), false);
      request.send();
      if (request.status === 200) insert(holder, request.responseText);
    } catch (e) { /* the printout keeps the link */ }
  }

  function reveal(hash) {
    var id;
    try { id = decodeURIComponent(hash.slice(1)); } catch (e) { return; }
    if (!id || document.getElementById(id)) return;
    var holder = [].find.call(document.querySelectorAll(HOLDER + "[data-lazy-ids]"), function (h) {
      return h.getAttribute("data-lazy-ids").split(" ").indexOf(id) >= 0;
    });
    if (!holder) return;
    holder.parentNode.open = true;
    load(holder).then(function () {
      var target = document.getElementById(id);
      if (target) target.scrollIntoView();
    });
  }

  document.addEventListener("toggle", function (e) {   // toggle does not bubble: listen capturing
    var holder = e.target.open && e.target.querySelector(":scope > " + HOLDER);
    if (holder) load(holder);
  }, true);
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href*='#']");
    if (a && a.origin === location.origin && a.pathname === location.pathname) reveal(a.hash);
  });
  window.addEventListener("hashchange", function () { reveal(location.hash); });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details > " + HOLDER).forEach(loadNow);
  });
  document.querySelectorAll("details[open] > " + HOLDER).forEach(load);
  reveal(location.hash);
})();
