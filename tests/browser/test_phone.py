"""Phones (375×812): no page is wider than the screen (with JavaScript off too, where math must
be laid out as MathML), no display formula scrolls sideways (where one must, on a narrower
screen, it scrolls inside its own box with a cue), every figure's text is at least 8 CSS px on
the page, and the figures of the long pages are legible: their smallest text
at least 9 CSS px as shown, or once opened full size with a tap (phone.js). Pages come from
sitemap.xml; each is loaded once for the checks that only read it."""

from __future__ import annotations

import pytest

from helpers import site_pages
from tests.browser.page_checks import WIDE_FORMULAS

PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}
MIN_TEXT_PX = 9
MIN_PAGE_TEXT_PX = 8   # on the page itself, before opening it full size


# The elements that stick out of the screen, outside any box that scrolls or clips them.
CULPRITS = """() => [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5)
    .filter(e => ![...document.querySelectorAll('body *')].some(p => p !== e && p.contains(e)
            && getComputedStyle(p).overflowX !== 'visible'))
    .slice(0, 5).map(e => e.tagName.toLowerCase() + '.' + e.className)"""


# A table wider than its box scrolls in Material's wrapper (made by its script, with a cue); any
# other table must fit: the explorer's weights stuck out of their frame by 24 px.
TABLES_OUT = """() => [...document.querySelectorAll('article table')]
    .filter(t => !t.closest('.md-typeset__scrollwrap, details:not([open])') && t.offsetParent)
    .filter(t => t.getBoundingClientRect().right > t.parentElement.getBoundingClientRect().right + 1)
    .map(t => t.className + ' ' + (t.caption ? t.caption.textContent : ''))"""


# Each picture (SVG) shown in the article, boxes opened, the light scheme's copy: its smallest
# text and viewBox width, and its width as shown (the text is font-size × shown / viewBox CSS px).
MEASURE_FIGURES = """async () => {
  document.querySelectorAll('article details').forEach(d => { d.open = true; });
  const out = [];
  for (const [index, img] of [...document.querySelectorAll('article img')].entries()) {
    img.loading = 'eager';
    if (getComputedStyle(img).display === 'none') continue;     // the other scheme's copy
    const src = img.currentSrc || img.src;
    if (!/\\.svg(#|$)/.test(src) && !src.startsWith('data:image/svg')) continue;
    await (img.complete && img.naturalWidth ? null : new Promise(r => img.addEventListener('load', r)));
    const svg = await (await fetch(src)).text();
    const box = svg.match(/viewBox="([-\\d.]+) ([-\\d.]+) ([\\d.]+) ([\\d.]+)"/);
    const sizes = [...svg.matchAll(/font(?:-size)?:\\s*(?:[a-z]+\\s+)*([\\d.]+)px/g)]
      .map(m => parseFloat(m[1]));
    // the font-size declarations alone: what phone.js reads to size the full-size view
    const declared = [...svg.matchAll(/font-size:\\s*([\\d.]+)px/g)].map(m => parseFloat(m[1]));
    if (!box || !sizes.length) continue;
    out.push({src: src.split('/').pop(), index, minFont: Math.min(...sizes),
              minDeclared: declared.length ? Math.min(...declared) : null,
              viewWidth: parseFloat(box[3]), shown: img.getBoundingClientRect().width});
  }
  return out;
}"""


# A post's parts (the details sidebar, the text) as laid out: [class, top], or null on another page.
POST_PARTS = """() => { const post = document.querySelector('.md-content--post');
    return post && Array.from(post.children, (c) => [c.className, c.getBoundingClientRect().top]); }"""


@pytest.fixture(scope="module")
def on_a_phone(browser, server, built_site) -> dict[str, dict]:
    """Every page loaded once on a phone in the light scheme (the schemes set colours only:
    tests/site/test_site.py checks the stylesheets): its width, what sticks out and a post's parts
    as loaded, then, every box opened, its figures' text and the display formulas that scroll, and
    last each figure too small to read tapped open full size (zoom_problem)."""
    found = {}
    context = browser.new_context(color_scheme="light", **PHONE)
    page = context.new_page()
    try:
        for path in site_pages(built_site):
            page.goto(server + path, wait_until="networkidle")
            width = page.evaluate("document.documentElement.scrollWidth")
            found[path] = {"width": width, "culprits": page.evaluate(CULPRITS) if width > 375 else [],
                           "tables": page.evaluate(TABLES_OUT), "post": page.evaluate(POST_PARTS),
                           "figures": page.evaluate(MEASURE_FIGURES),
                           "formulas": page.evaluate(WIDE_FORMULAS)}
            found[path]["zoom"] = [problem for figure in found[path]["figures"]
                                   if (problem := zoom_problem(page, path, figure)) is not None]
    finally:
        context.close()
    return found


def test_no_page_nor_table_is_wider_than_the_screen(on_a_phone):
    for path, seen in on_a_phone.items():
        assert seen["width"] <= 375, f"{path} is {seen['width']} px wide at 375 px: {seen['culprits']}"
        assert seen["tables"] == [], f"tables stick out of their box on {path}"


# Every formula is MathML the browser lays out as math: its box has a size, and a fraction's
# numerator sits above its denominator (as inline text they would sit side by side).
MATH_LAYOUT = """() => {
    const all = [...document.querySelectorAll('article .arithmatex')];   // details opened first
    const empty = all.filter(el => {
        const m = el.querySelector('math');
        if (!m) return true;
        const r = m.getBoundingClientRect();
        return !(r.width > 0 && r.height > 0);
    }).map(el => el.textContent.slice(0, 60));
    const fracs = [...document.querySelectorAll('article mfrac')].map(f => {
            const [num, den] = [...f.children].map(c => c.getBoundingClientRect());
            return num.bottom <= den.top + 1 && num.width > 0 && den.width > 0;
        });
    return {total: all.length, empty, fracs: fracs.length, stacked: fracs.filter(Boolean).length,
            family: all.length ? getComputedStyle(all[0].querySelector('math')).fontFamily : ''};
}"""


def test_without_javascript_pages_fit_the_screen_and_math_is_laid_out(browser, server, built_site):
    """Math is typeset at build time (anatomia_engine/mathml.py): without JavaScript no `\\(`…`\\)`
    is left, every formula is MathML that the browser lays out as math (a fraction's numerator
    above its denominator), in the site's own math font."""
    context = browser.new_context(color_scheme="light", java_script_enabled=False, **PHONE)
    page = context.new_page()
    fractions = 0
    try:
        with_math = site_pages(built_site, "<math")
        for path in site_pages(built_site):
            page.goto(server + path, wait_until="networkidle")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 375:
                pytest.fail(f"{path} is {width} px wide at 375 px: {page.evaluate(CULPRITS)}")
            if path not in with_math:
                continue
            text = page.evaluate("document.querySelector('article').innerText")
            for delim in ("\\(", "\\)", "\\[", "\\]"):
                assert delim not in text, f"raw TeX {delim!r} visible on {path} without JavaScript"
            page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            layout = page.evaluate(MATH_LAYOUT)
            assert layout["total"] > 0, f"no formula on {path}"
            assert layout["empty"] == [], f"formulas without a MathML box on {path}: {layout['empty'][:5]}"
            assert layout["stacked"] == layout["fracs"], f"fractions not laid out as math on {path}: {layout}"
            fractions += layout["fracs"]
            # A math face (with an OpenType MATH table) is asked for, not the prose font.
            assert "Math" in layout["family"] and layout["family"].rstrip().endswith("math"), layout
    finally:
        context.close()
    assert fractions > 0, "no visible fraction on any page: the layout check checks nothing"


def test_display_formulas_fit_the_column(on_a_phone):
    """Long equations are broken at their relations: none scrolls sideways on a phone (on a
    laptop: tests/browser/page_checks.py, in test_a11y.py's visits)."""
    wide = {path: seen["formulas"] for path, seen in on_a_phone.items() if seen["formulas"]}
    assert not wide, f"formulas wider than the column at 375 px: {wide}"


def test_every_figure_text_is_at_least_8_css_px_at_375(on_a_phone):
    small = [f"{path} {f['src']}: {f['minFont'] * f['shown'] / f['viewWidth']:.1f} px"
             for path, seen in on_a_phone.items() for f in seen["figures"]
             if f["minFont"] * f["shown"] / f["viewWidth"] < MIN_PAGE_TEXT_PX]
    assert not small, "figure text below 8 CSS px on a phone:\n" + "\n".join(small)


def test_the_measurement_saw_every_figure(on_a_phone, built_site):
    """Every light picture the build made was measured on some page (the test can fail); the dark
    copies have the same sizes and <img> tags (tests/site/test_site.py checks that)."""
    seen = {f["src"].split("#")[0] for page in on_a_phone.values() for f in page["figures"]}
    made = {picture.name for picture in (built_site / "figures").rglob("*-light.svg")}
    assert made <= seen and len(made) > 20, sorted(made - seen)


@pytest.mark.parametrize("path", ["/krok-po-kroku/", "/posty/llm-mechanizm-uwagi/"])
def test_wide_formulas_scroll_in_their_box_with_a_cue(browser, server, path):
    # The formulas are written to fit 375 px; on a narrower screen (300 px) some do not, and
    # those must scroll in their own box, with the cue, reachable by keyboard.
    context = browser.new_context(**{**PHONE, "viewport": {"width": 300, "height": 812}})
    phone = context.new_page()
    phone.goto(server + path, wait_until="networkidle")
    # phone.js measures the boxes once the page is idle after load, and those in a <details> when
    # it is opened: every details is opened, and every wide box must become reachable.
    phone.evaluate("document.querySelectorAll('article details').forEach(d => { d.open = true; })")
    try:
        phone.wait_for_function("""() => [...document.querySelectorAll('article .arithmatex')]
            .filter(b => b.scrollWidth > b.clientWidth + 1).every(b => b.tabIndex === 0)""", timeout=10000)
    except Exception:  # noqa: BLE001 - the assertions below name the box that is not reachable
        pass
    boxes = phone.evaluate("""() => [...document.querySelectorAll('article .arithmatex')]
        .filter(b => b.scrollWidth > b.clientWidth + 1).map(b => {
            const s = getComputedStyle(b), r = b.getBoundingClientRect();
            b.scrollLeft = b.scrollWidth;
            return {overflow: s.overflowX, left: r.left, right: r.right, scrolled: b.scrollLeft,
                    image: s.backgroundImage, attach: s.backgroundAttachment, tab: b.tabIndex,
                    tex: (b.querySelector('annotation') || b).textContent.slice(0, 60)};
        })""")
    assert boxes, f"no formula on {path} is wider than a phone: the test would check nothing"
    for box in boxes:
        assert box["overflow"] in ("auto", "scroll"), box
        assert box["left"] >= 0 and box["right"] <= 300, box
        assert box["scrolled"] > 0, f"the box does not scroll: {box}"
        assert box["image"].count("radial-gradient") == 2, f"no edge shadow: {box}"
        assert "local" in box["attach"] and "scroll" in box["attach"], box
        assert box["tab"] == 0, f"a scrolling formula is not reachable by keyboard: {box}"
    context.close()


def zoom_problem(page, path: str, figure: dict) -> str | None:
    """A figure whose smallest text is under MIN_TEXT_PX as shown must open full size with a tap
    (phone.js), large enough for that text: what is wrong, or None (legible, or opened so)."""
    if figure["minDeclared"] is None:
        return None                       # no text in the picture
    shown = figure["minDeclared"] * figure["shown"] / figure["viewWidth"]
    if shown >= MIN_TEXT_PX:
        return None
    page.locator("article img").nth(figure["index"]).tap()
    dialog = page.locator("dialog.fig-zoom[open]")
    if dialog.count() != 1:
        return f"{path} {figure['src']}: text {shown:.1f} px and no full-size view"
    big = dialog.locator("img")
    big.evaluate("i => (i.complete && i.naturalWidth) || new Promise(r => i.addEventListener('load', r))")
    need = MIN_TEXT_PX * figure["viewWidth"] / figure["minDeclared"]      # width that makes it legible
    try:
        page.wait_for_function("([i, w]) => i.getBoundingClientRect().width >= w",
                               arg=[big.element_handle(), need], timeout=3000)
    except Exception:  # noqa: BLE001 - the size reached is reported below
        pass
    zoomed = figure["minDeclared"] * big.bounding_box()["width"] / figure["viewWidth"]
    page.keyboard.press("Escape")
    if zoomed < MIN_TEXT_PX:
        return f"{path} {figure['src']}: {zoomed:.1f} px even full size"
    if page.locator("dialog.fig-zoom[open]").count():
        return f"{path} {figure['src']}: Escape does not close the full-size view"
    return None


def test_every_figure_is_legible_or_opens_full_size(on_a_phone):
    """Every figure on every page: its smallest text at least MIN_TEXT_PX as shown, or once tapped
    open full size (the figures with text are those of test_the_measurement_saw_every_figure)."""
    problems = [problem for seen in on_a_phone.values() for problem in seen["zoom"]]
    assert not problems, "\n".join(problems)
    small = [f for seen in on_a_phone.values() for f in seen["figures"] if f["minDeclared"] is not None
             and f["minDeclared"] * f["shown"] / f["viewWidth"] < MIN_TEXT_PX]
    assert small, "no figure needs opening full size on a phone: the tap is never checked"


def test_a_posts_details_keep_their_place_above_the_text_so_loading_cannot_move_them(on_a_phone):
    posts = {path: seen["post"] for path, seen in on_a_phone.items() if seen["post"]}
    assert posts, "no page of the site is a post: the check checks nothing"
    for path, order in posts.items():
        names = [name for name, _ in order]
        assert [n.split()[-1] for n in names][:2] == ["md-sidebar--post", "md-typeset"], (path, names)
        tops = [top for _, top in order]
        assert tops == sorted(tops), (path, order)   # shown in page order: a paint mid-load shows the same
