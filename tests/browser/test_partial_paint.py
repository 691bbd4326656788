"""A page painted before all of it has arrived: what is painted stays where it is.

The browser paints a long page while it is still parsing it (the parser yields to paint on a
slow phone, a slow network or a busy processor), at any point of the document. Every element of
that picture on the reader's first screen must stand where the whole page puts it, or the reader
sees it jump (a layout shift). Each page is loaded in a sandboxed frame of the reader's width
that runs no script (the site's scripts come last: they have not run yet); then, from the last
element that starts on the first screen back to the body's start, the document is cut where the
parser may stop: right after an element's start tag (the element there, none of its content
yet) and before it (the element and everything after it removed). The position of every visible
element left is compared with the whole page's. Cuts are made at each element that opens a
context not seen before (its ancestors and itself, each as tag, classes and first, second or
later place among its siblings): a list of fifty links is cut at its first three.
"""

from __future__ import annotations

import pytest

from helpers import site_pages

HEIGHT = 812

CUT_AND_COMPARE = """async ([url, width, height, seen]) => {
  const frame = document.createElement('iframe');
  frame.style.cssText = `width:${width}px;height:${height}px;border:0`;
  frame.sandbox = 'allow-same-origin';        // no script runs: the parser's work alone
  document.body.appendChild(frame);
  await new Promise(done => { frame.onload = done; frame.src = url; });
  const doc = frame.contentDocument;
  await doc.fonts.ready;
  const name = e => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className
    ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  // What the browser's layout-shift tracking follows: boxes, and text (an inline element stands for
  // the text directly in it; one whose content is all in hidden boxes paints nothing that can move).
  const painted = e => getComputedStyle(e).display !== 'inline'
    || [...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  const place = e => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, shown: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < height
                                   && r.right > 0 && r.left < width && painted(e)
                                   && e.checkVisibility({opacityProperty: true, visibilityProperty: true})};
  };
  const all = [...doc.body.querySelectorAll('*')];
  const whole = all.map(place);
  const onScreen = all.filter((e, i) => whole[i].shown);
  const last = onScreen[onScreen.length - 1];
  const context = e => {
    const path = [];
    for (let n = e; n !== doc.body; n = n.parentElement) {
      const index = [...n.parentElement.children].indexOf(n);
      path.unshift(name(n) + ':' + Math.min(index, 2));
    }
    return path.join(' > ');
  };
  const cuts = [];
  const known = new Set(seen);
  for (const e of all.slice(0, all.indexOf(last) + 1)) {
    const key = context(e);
    if (!known.has(key)) { known.add(key); cuts.push(e); }
  }
  const moved = [];
  const compare = (cut) => {
    const jumps = [];
    all.forEach((el, i) => {
      if (!el.isConnected) return;
      const p = place(el), g = whole[i];
      if (p.shown && (Math.abs(p.x - g.x) > 1 || Math.abs(p.y - g.y) > 1))
        jumps.push(`${name(el)} (${p.x.toFixed(0)}, ${p.y.toFixed(0)}) → `
                   + `(${g.x.toFixed(0)}, ${g.y.toFixed(0)})`);
    });
    if (jumps.length) moved.push(`cut ${cut}: ${jumps.slice(0, 3).join('; ')}`);
  };
  const removeAfter = (e) => {                // what follows e in the document
    for (let n = e; n !== doc.body; n = n.parentElement) {
      for (let s = n.nextSibling, next; s; s = next) { next = s.nextSibling; s.remove(); }
    }
  };
  for (const e of cuts.reverse()) {           // each cut removes more: nothing is put back
    removeAfter(e);
    if (getComputedStyle(e).display !== 'inline') {   // an inline's box is its text's
      e.replaceChildren();
      compare(`inside ${name(e)}`);
    }
    e.remove();
    compare(`before ${name(e)}`);
  }
  frame.remove();
  return {cuts: cuts.length, moved: moved.reverse(), seen: [...known]};
}"""


@pytest.mark.parametrize("width", [375, 1280])
def test_what_is_painted_before_the_page_has_arrived_never_moves(browser, server, built_site, width):
    context = browser.new_context(viewport={"width": width + 20, "height": HEIGHT + 20})
    page = context.new_page()
    page.goto(server + "/404.html")
    moved = []
    cuts = 0
    seen: list[str] = []
    try:
        for path in site_pages(built_site):
            result = page.evaluate(CUT_AND_COMPARE, [server + path, width, HEIGHT, seen])
            cuts += result["cuts"]
            seen = result["seen"]
            moved += [f"{path} {line}" for line in result["moved"]]
    finally:
        context.close()
    assert cuts > 0, "no cut was made: the check checks nothing"
    assert not moved, f"elements painted early move later at {width} px:\n" + "\n".join(moved)


GROW_FORMULA = """async () => {
  const frames = n => new Promise(done => {
    const step = k => k ? requestAnimationFrame(() => step(k - 1)) : setTimeout(done, 100);
    step(n);
  });
  const math = [...document.querySelectorAll('article math[display="block"]')]
    .sort((a, b) => b.querySelector('semantics').firstElementChild.children.length
                    - a.querySelector('semantics').firstElementChild.children.length)[0];
  const semantics = math.querySelector('semantics');
  const row = semantics.firstElementChild;
  const annotation = semantics.querySelector(':scope > annotation');
  const rest = [...row.children].slice(Math.ceil(row.children.length / 2));
  rest.forEach(child => child.remove());
  annotation.remove();
  math.scrollIntoView({block: 'center'});
  await frames(3);
  let shift = 0;
  new PerformanceObserver(list => list.getEntries().forEach(e => { shift += e.value; }))
    .observe({type: 'layout-shift'});
  rest.forEach(child => row.appendChild(child));
  semantics.appendChild(annotation);
  await frames(3);
  return [shift, getComputedStyle(math).visibility];
}"""


def test_a_formula_painted_before_it_has_all_arrived_does_not_move(browser, server, built_site):
    """The parser may yield inside a display formula: the part painted must not move when the rest
    arrives (math.css shows a formula once its last part, the annotation, is there). The block
    formula with the most parts on the first page that has one grows from its first half."""
    path = site_pages(built_site, containing='<math display="block"')[0]
    context = browser.new_context(viewport={"width": 1280, "height": HEIGHT})
    try:
        page = context.new_page()
        page.goto(server + path, wait_until="networkidle")
        shift, visibility = page.evaluate(GROW_FORMULA)
        assert visibility == "visible", f"the whole formula on {path} is not shown"
        assert shift == 0, f"a formula on {path} moved by {shift} while the rest of it arrived"
    finally:
        context.close()
