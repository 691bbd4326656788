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
