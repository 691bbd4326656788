"""The site's chrome in the browser: a working Polish 404 page at any depth, print, contrast of
the chrome (checked in tests/browser/test_a11y.py's and test_a11y_dark.py's visits), links in
text underlined (the static checks are in tests/site/test_chrome.py)."""

from __future__ import annotations

import re
from urllib.parse import urlparse


def test_404_page_works_at_any_depth(browser, server):
    """A server answers a missing address with 404.html: its styles, scripts and links must work."""
    context = browser.new_context()
    page = context.new_page()
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("response", lambda r: failed.append(r.url)
            if r.status >= 400 and "/nie/ma/" not in r.url else None)
    body = None

    def missing(route):
        nonlocal body
        if body is None:
            body = page.context.request.get(server + "/404.html").text()
        route.fulfill(status=404, body=body, content_type="text/html; charset=utf-8")

    try:
        page.route("**/nie/ma/takiej/strony/", missing)
        page.goto(server + "/nie/ma/takiej/strony/", wait_until="networkidle")
        assert failed == [], failed
        header = page.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor")
        assert header not in ("rgba(0, 0, 0, 0)", "transparent"), "Material's CSS did not load"
        page.locator("article a", has_text="Eksplorator uwagi").click()
        page.wait_for_load_state("networkidle")
        assert urlparse(page.url).path == "/llm/anatomia/"
    finally:
        context.close()


def test_print_shows_light_figures_and_no_navigation_in_dark_mode(browser, server):
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    try:
        page.goto(server + "/krok-po-kroku/", wait_until="networkidle")
        page.emulate_media(media="print", color_scheme="dark")
        shown = page.evaluate("""() => [...document.querySelectorAll('article img')]
            .filter(i => getComputedStyle(i).display !== 'none').map(i => i.getAttribute('src'))""")
        assert shown and all(src.endswith("#only-light") for src in shown), shown
        figures = page.evaluate("document.querySelectorAll('article figure.computed-figure').length")
        assert len(shown) == figures
        hidden = page.evaluate("""() => ['.md-header', '.md-tabs', '.md-sidebar--primary', '.md-footer']
            .map(s => document.querySelector(s)).filter(Boolean)
            .filter(e => getComputedStyle(e).display !== 'none').map(e => e.className)""")
        assert hidden == []
        colours = page.evaluate("""() => [getComputedStyle(document.body).backgroundColor,
                                          getComputedStyle(document.querySelector('article p')).color]""")
        background, text = [tuple(int(v) for v in re.findall(r"\d+", c)[:3]) for c in colours]
        assert min(background) > 240 and max(text) < 80, colours
        # an external link prints its address
        after = page.evaluate("""() => {
            const a = document.querySelector('article a[href^="http"]');
            return a ? getComputedStyle(a, '::after').content : null; }""")
        assert after is None or "http" in after
    finally:
        context.close()


CONTRAST = """(sel) => {
    const parse = c => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m[3] ?? 1]; };
    const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    const lum = ([r, g, b]) => { const f = lin;
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const over = (fg, bg) => fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    return [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length).map(el => {
        let bg = null, opacity = 1;
        for (let e = el; e; e = e.parentElement) {
            opacity *= Number(getComputedStyle(e).opacity);
            const c = parse(getComputedStyle(e).backgroundColor);
            if (!bg && c[3] > 0) bg = c;
        }
        bg = bg || [255, 255, 255, 1];
        const fg = parse(getComputedStyle(el).color); fg[3] *= opacity;
        const a = lum(over(fg, bg)), b = lum(bg);
        return [el.textContent.trim().slice(0, 30), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
    });
}"""


# The chrome's texts of each page (selectors) that must keep a contrast of 4.5 in both schemes.
CHROME_TEXT = {
    "/": [".md-tabs__link", ".md-copyright"],
    "/laby/lab-3/": [".md-typeset .md-button"],                      # "Pobierz notatnik"
    "/llm/anatomia/": [".attn-x .md-button:not(:disabled)",           # "Przywróć ustawienia przykładu"
                       'table.attn-x__matrix tr.attn-x__chosen th[scope="row"]'],   # the orange label
}


def check_chrome_contrast(page, path: str, scheme: str) -> None:
    """The chrome's texts of CHROME_TEXT[path] on the loaded `page` keep a contrast of 4.5:
    tests/browser/test_a11y.py and test_a11y_dark.py call it in their visits of those pages."""
    for selector in CHROME_TEXT[path]:
        ratios = page.evaluate(CONTRAST, selector)
        assert ratios, f"nothing matches {selector}"
        low = [(text, round(r, 2)) for text, r in ratios if r < 4.5]
        assert low == [], f"{scheme} {path} {selector}: {low}"


LINKS = "article p a[href]:not(.footnote-backref):not(.footnote-ref)"


def test_links_in_text_are_underlined(browser, server):
    # In the light scheme: the schemes set colours only (tests/site/test_site.py checks the stylesheets).
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    try:
        page.goto(server + "/posty/llm-mechanizm-uwagi/", wait_until="networkidle")
        plain = page.evaluate("""(sel) => [...document.querySelectorAll(sel)]
            .filter(a => !getComputedStyle(a).textDecorationLine.includes('underline'))
            .map(a => a.textContent.trim())""", LINKS)
        count = page.evaluate("(sel) => document.querySelectorAll(sel).length", LINKS)
        assert count > 10 and plain == [], plain
    finally:
        context.close()
