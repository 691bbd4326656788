"""Browser smoke test in headless Chromium: math typeset, figures load in both themes, offline,
and no display formula wider than the column at 1280 px (on a phone: test_phone.py). The same
visits check the chrome's contrast (test_chrome.py) and the numbers' popovers (test_provenance.py).
This file visits every page in the light scheme; test_a11y_dark.py's visits make the same checks
of a page (check_page, the chrome's contrast) in the dark scheme.

Serves a fresh build on 127.0.0.1 and fails on any request to another host. Needs Debian's
chromium (.ci/run installs it); without it the tests are skipped with that reason.
"""

from __future__ import annotations

from urllib.parse import urlparse

from helpers import site_pages
from tests.browser.test_chrome import CHROME_TEXT, check_chrome_contrast
from tests.browser.test_phone import WIDE_FORMULAS
from tests.browser.test_provenance import check_numbers

# `server` and `browser` come from conftest.py (the browser fixture skips without chromium).


def watch(page) -> tuple[list[str], list[str]]:
    """Requests of `page` to another host (aborted) and failed requests, as they come."""
    outside: list[str] = []
    failed: list[str] = []

    def route(r):
        host = urlparse(r.request.url).hostname
        if r.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("requestfailed", lambda req: failed.append(req.url))
    page.on("response", lambda res: failed.append(res.url) if res.status >= 400 else None)
    return outside, failed


def open_page(browser, url: str, scheme: str):
    """`url` loaded in a tab of its own: (context, page, requests to another host, failed ones)."""
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    outside, failed = watch(page)
    page.goto(url, wait_until="networkidle")
    return context, page, outside, failed


def test_every_page_is_offline_typeset_and_its_figures_load(browser, server, built_site):
    """In the light scheme; the dark scheme's visits are tests/browser/test_a11y_dark.py's, which
    make these checks (check_page) after axe."""
    # One tab for every page, each navigated to afresh (as a reader goes from page to page).
    scheme = "light"
    context = browser.new_context(color_scheme=scheme)
    try:
        page = context.new_page()
        outside, failed = watch(page)
        formulas = 0
        pages = site_pages(built_site)
        assert set(CHROME_TEXT) <= set(pages), sorted(set(CHROME_TEXT) - set(pages))
        numbered = set(site_pages(built_site, containing='class="num"'))
        for path in pages:
            outside.clear()
            failed.clear()
            page.goto(server + path, wait_until="networkidle")
            if path in CHROME_TEXT:
                check_chrome_contrast(page, path, scheme)
            if path in numbered:   # the numbers' script works alike in both schemes
                check_numbers(page, path)
            # A font the checks made the page draw (a popover's text) loads before the failures are
            # read: else its request is cut by the next page's navigation and counted against that page.
            page.evaluate("document.fonts.ready.then(() => true)")
            formulas += check_page(page, path, scheme, outside, failed)
    finally:
        context.close()
    assert formulas > 10, f"only {formulas} typeset formulas on the whole site"


def check_page(page, path: str, scheme: str, outside: list[str], failed: list[str]) -> int:
    """The checks of one loaded page; the number of its typeset formulas."""
    assert outside == [], f"{path}: requests left 127.0.0.1: {outside}"
    assert failed == [], f"{path}: failed requests: {failed}"
    raw = page.evaluate("""() => [...document.querySelectorAll('.arithmatex')]
        .filter(el => !el.querySelector('math')).map(el => el.textContent.slice(0, 80))""")
    assert raw == [], f"{path}: math left untypeset: {raw}"
    assert page.evaluate("document.querySelectorAll('merror').length") == 0
    want = "only-dark" if scheme == "dark" else "only-light"
    images = page.evaluate("""async (want) => {
        const imgs = [...document.querySelectorAll('article img')].filter(i => i.src.includes('#' + want));
        imgs.forEach(img => { img.loading = 'eager'; });
        await Promise.all(imgs.map(img => img.complete ? null : new Promise(done => {
            img.addEventListener('load', done); img.addEventListener('error', done); })));
        return imgs.map(img => img.src);
    }""", want)
    broken = page.evaluate("""(want) => [...document.querySelectorAll('article img')]
        .filter(img => img.src.includes('#' + want) && img.offsetParent !== null)
        .filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src)""", want)
    assert broken == [], f"{path}: images that did not load: {broken}"
    hidden = page.evaluate("""(want) => [...document.querySelectorAll('article img')]
        .filter(img => img.src.includes('#' + want) && img.offsetParent === null).length""", want)
    assert hidden == 0, f"{path}: {hidden} {want} images are hidden in the {scheme} scheme"
    if images:
        other = "only-light" if scheme == "dark" else "only-dark"
        shown_other = page.evaluate("""(o) => [...document.querySelectorAll('article img')]
            .filter(img => img.src.includes('#' + o) && img.offsetParent !== null).length""", other)
        assert shown_other == 0, f"{path}: {other} images are visible in the {scheme} scheme"
    if scheme == "light":   # the schemes set colours only (tests/site/test_site.py)
        page.evaluate("document.querySelectorAll('article details').forEach(d => { d.open = true; })")
        wide = page.evaluate(WIDE_FORMULAS)
        assert not wide, f"{path}: formulas wider than the column at 1280 px: {wide}"
    return page.evaluate("document.querySelectorAll('.arithmatex > math').length")
