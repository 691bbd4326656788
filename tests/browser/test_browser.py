"""Browser smoke test in headless Chromium: math typeset, figures load in both themes, offline.

Serves a fresh build on 127.0.0.1 and fails on any request to another host. Needs Debian's
chromium (.ci/run installs it); without it the tests are skipped with that reason.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from helpers import site_pages

# `server` and `browser` come from conftest.py (the browser fixture skips without chromium).


def open_page(browser, url: str, scheme: str):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
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
    page.goto(url, wait_until="networkidle")
    return context, page, outside, failed


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_is_offline_typeset_and_its_figures_load(browser, server, built_site, scheme):
    for path in site_pages(built_site):
        check_page(browser, server, path, scheme)


def check_page(browser, server: str, path: str, scheme: str):
    context, page, outside, failed = open_page(browser, server + path, scheme)
    try:
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
            await Promise.all(imgs.map(img => img.complete ? null :
                new Promise(done => { img.addEventListener('load', done); img.addEventListener('error', done); })));
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
    finally:
        context.close()


def test_math_pages_really_have_math(browser, server):
    context, page, _, _ = open_page(browser, server + "/krok-po-kroku/", "light")
    try:
        assert page.evaluate("document.querySelectorAll('.arithmatex > math').length") > 10
    finally:
        context.close()
