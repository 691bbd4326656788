"""The checks of a loaded page of the real site, made in the desktop visits of every page that
tests/browser/test_a11y.py (light) and test_a11y_dark.py (dark) make for axe: offline (no request
to another host, none failed), math typeset, the scheme's figures load and the other scheme's stay
hidden, and in the light scheme no display formula wider than the column at 1280 px (on a phone:
test_phone.py). The same visits check the chrome's contrast (test_chrome.py) and, in the light
scheme, the numbers' popovers (test_provenance.py)."""

from __future__ import annotations

from urllib.parse import urlparse

from tests.browser.test_phone import WIDE_FORMULAS


def watch(page) -> tuple[list[str], list[str]]:
    """Requests of `page` to another host and failed requests, as they come (only listened to: the
    page loads as a reader's would, for the layout-shift measurement of the same visit)."""
    outside: list[str] = []
    failed: list[str] = []

    def request(r):
        if not r.url.startswith(("data:", "blob:")) and urlparse(r.url).hostname != "127.0.0.1":
            outside.append(r.url)

    page.on("request", request)
    page.on("requestfailed", lambda req: failed.append(req.url))
    page.on("response", lambda res: failed.append(res.url) if res.status >= 400 else None)
    return outside, failed


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
