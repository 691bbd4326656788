"""A page painted before all of it has arrived: what is painted stays where it is.

The browser paints a long page while it is still parsing it (the parser yields to paint on a
slow phone or a slow network). Every element of that first picture must stand where the whole
page puts it, or the reader sees it jump (a layout shift). Each page is loaded in a frame of the
reader's width without its scripts (they come last: they have not run yet); then, from the end
of the article's first paragraph back to the body's start, the document is cut before an
element (that element and everything after it removed: what the parser has not reached) and the
position of every visible element left is compared with the whole page's. A cut is made before
each element that opens a context not seen before (its ancestors and itself, each as tag,
classes and first, second or later place among its siblings): a list of fifty links is cut
before its first three.
"""

from __future__ import annotations

import pytest

from helpers import site_pages

HEIGHT = 812

CUT_AND_COMPARE = """async ([url, width, height, seen]) => {
  const frame = document.createElement('iframe');
  frame.style.cssText = `width:${width}px;height:${height}px;border:0`;
  document.body.appendChild(frame);
  await new Promise(done => { frame.onload = done; frame.src = url; });
  const doc = frame.contentDocument;
  await doc.fonts.ready;
  const name = e => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className
    ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  const place = e => {
    const r = e.getBoundingClientRect();
    return {x: r.x, y: r.y, shown: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < height
                                   && r.right > 0 && r.left < width};
  };
  const all = [...doc.body.querySelectorAll('*')];
  const first = doc.querySelector('.md-content article p');
  const last = first.querySelectorAll('*').length ? [...first.querySelectorAll('*')].pop() : first;
  const whole = all.map(place);
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
  for (const e of cuts.reverse()) {           // each cut removes more: nothing is put back
    const line = [];
    for (let n = e; n !== doc.body; n = n.parentElement) line.push(n);
    line.forEach(n => {
      for (let s = n === e ? n : n.nextSibling, next; s; s = next) { next = s.nextSibling; s.remove(); }
    });
    const jumps = [];
    all.forEach((el, i) => {
      if (!el.isConnected) return;
      const p = place(el), g = whole[i];
      if (p.shown && (Math.abs(p.x - g.x) > 1 || Math.abs(p.y - g.y) > 1))
        jumps.push(`${name(el)} (${p.x.toFixed(0)}, ${p.y.toFixed(0)}) → `
                   + `(${g.x.toFixed(0)}, ${g.y.toFixed(0)})`);
    });
    if (jumps.length) moved.push(`cut before ${name(e)}: ${jumps.slice(0, 3).join('; ')}`);
  }
  frame.remove();
  return {cuts: cuts.length, moved: moved.reverse(), seen: [...known]};
}"""


@pytest.mark.parametrize("width", [375, 1280])
def test_what_is_painted_before_the_page_has_arrived_never_moves(browser, server, built_site, width):
    context = browser.new_context(viewport={"width": width + 20, "height": HEIGHT + 20})
    page = context.new_page()
    page.route("**/*.js", lambda route: route.abort())   # scripts come last: not run yet
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
