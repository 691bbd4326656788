"""Math typeset at build time (anatomia_engine/katex.py, called by the anatomia plugin).

The built site in Chromium: math readable with JavaScript off (no `\\(`…`\\)` left, every
  formula MathML that the browser lays out as math: a fraction's numerator above its
  denominator), in the site's own math font. No layout shift: tests/browser/test_a11y.py
  (measured in the visits axe makes).
"""

from __future__ import annotations

from helpers import site_pages

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


def test_math_is_readable_with_javascript_off(browser, server, built_site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    fractions = 0
    try:
        for path in site_pages(built_site, "<math"):
            page.goto(server + path, wait_until="load")
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
