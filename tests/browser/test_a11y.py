"""Accessibility and layout shift: axe-core (npm devDependency, served from node_modules into the
page) over every page of the built site, light and dark, at desktop and phone width: no serious or
critical violation (a failure lists each rule with the selectors of the elements that break it);
and no layout shift (CLS 0) while a page loads in the light scheme, in the same visits. The dark
scheme: test_a11y_dark.py (a file of its own, so that another worker runs it beside this one).

axe's colour rules run in both schemes at desktop width, where every page shows the most text; at
phone width they run too on any page whose text there has colours, backgrounds or a text size (what
contrast depends on) that the desktop run did not see. The other rules run in the light scheme at
both widths: a scheme sets colours only (tests/site/test_site.py checks the stylesheets).

The desktop visits of the site's pages also make, once axe has run, the checks of a loaded page of
tests/browser/page_checks.py (offline, math typeset, figures loaded), the chrome's contrast and the
numbers' popovers."""

from __future__ import annotations

import collections
import http.server

import pytest

from helpers import serving, site_pages
from tests.browser.page_checks import (
    AXE,
    CHROME_TEXT,
    CONTRAST_INPUTS,
    NARROW,
    WIDE,
    blocking,
    check_chrome_contrast,
    check_numbers,
    check_page,
    load,
    options,
    report,
    unseen_contrast,
    watch,
)

CLS_OBSERVER = """
window.__cls = 0;
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__cls += entry.value;
    window.__shifts.push(entry.sources.map((s) => s.node ? (s.node.className || s.node.nodeName) : "?"));
  }
}).observe({ type: "layout-shift", buffered: true });
"""


def first_visit_tab(browser, width: int):
    """A tab whose every navigation loads a page as on a reader's first visit: nothing from the
    browser's caches (DevTools' Network.setCacheDisabled: cheaper than a fresh context per page,
    which starts a renderer process each time) and the origin's storage cleared before each load;
    the layout-shift observer starts before each page's first byte."""
    context = browser.new_context(color_scheme="light", viewport={"width": width, "height": 812})
    page = context.new_page()
    page.add_init_script(CLS_OBSERVER)
    devtools = context.new_cdp_session(page)
    devtools.send("Network.enable")
    devtools.send("Network.setCacheDisabled", {"cacheDisabled": True})
    return context, page, devtools


@pytest.fixture(scope="module")
def light(browser, server, built_site) -> dict[tuple[str, int], dict]:
    """Every page in the light scheme at both widths, each loaded as on a reader's first visit:
    (path, width) → its layout shift while it loaded, and axe's blocking violations."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run 'make docs' (npm ci installs axe-core)")
    found = {}
    pages = site_pages(built_site)
    numbered = set(site_pages(built_site, containing='class="num"'))
    tabs = {width: first_visit_tab(browser, width) for width in (WIDE, NARROW)}
    try:
        seen = {width: watch(page) for width, (_, page, _) in tabs.items()}
        for path in [*pages, "/404.html"]:
            inputs = {}
            for width, (_, page, devtools) in tabs.items():
                outside, failed = seen[width]
                outside.clear()
                failed.clear()
                devtools.send("Storage.clearDataForOrigin", {"origin": server, "storageTypes": "all"})
                load(page, server + path)
                page.wait_for_timeout(300)
                cls, shifts = page.evaluate("[window.__cls, window.__shifts]")
                inputs[width] = page.evaluate(CONTRAST_INPUTS)
                colour = width == WIDE or bool(unseen_contrast(inputs[NARROW], inputs[WIDE]))
                violations = blocking(page, options(colour, True))
                found[path, width] = {"cls": cls, "shifts": shifts, "axe": violations}
                if width == WIDE and path in pages:
                    found[path, width] |= checked_page(page, path, numbered, outside, failed)
    finally:
        for context, _, _ in tabs.values():
            context.close()
    return found


def checked_page(page, path: str, numbered: set[str], outside: list[str], failed: list[str]) -> dict:
    """tests/browser/page_checks.py's checks of the loaded `page`, once axe has run: what failed,
    and the number of typeset formulas."""
    try:
        if path in CHROME_TEXT:
            check_chrome_contrast(page, path, "light")
        if path in numbered:   # the numbers' script works alike in both schemes
            check_numbers(page, path)
        # A font the checks made the page draw (a popover's text) loads before the failures are read.
        page.evaluate("document.fonts.ready.then(() => true)")
        return {"problem": None, "formulas": check_page(page, path, "light", outside, failed)}
    except AssertionError as error:
        return {"problem": f"{path} (light): {error}", "formulas": 0}


def test_axe_finds_no_serious_violation_in_the_light_scheme(light):
    failures = [f"{path} (light, {width} px):\n{report(seen['axe'])}"
                for (path, width), seen in light.items() if seen["axe"]]
    assert not failures, "\n".join(failures)


def test_every_page_is_offline_typeset_and_its_figures_load(light, built_site):
    """page_checks.py's checks of every page in the light scheme, the chrome's contrast and the
    numbers' popovers (the dark scheme: test_a11y_dark.py)."""
    pages = set(site_pages(built_site))
    assert set(CHROME_TEXT) <= pages, sorted(set(CHROME_TEXT) - pages)
    problems = [seen["problem"] for seen in light.values() if seen.get("problem")]
    assert not problems, "\n".join(problems)
    formulas = sum(seen.get("formulas", 0) for seen in light.values())
    assert formulas > 10, f"only {formulas} typeset formulas on the whole site"


def test_no_layout_shift(light):
    """CLS 0 on every page at phone and desktop width (measured with a PerformanceObserver of
    `layout-shift` from before the page's first byte until it is idle)."""
    for (path, width), seen in light.items():
        cls = seen["cls"]
        assert cls == 0, f"CLS {cls} on {path} at {width} px: {seen['shifts']}"


def test_a_colour_shown_only_on_a_phone_is_seen(browser):
    """The comparison above finds text whose colour a phone-width rule changes."""
    html = ("<style>@media (max-width: 600px) { p.tip { color: #777 } }</style>"
            "<main><p>Tekst.</p><p class='tip'>Wskazówka.</p></main>")
    found = {}
    for width in (WIDE, NARROW):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.set_content(html)
        found[width] = page.evaluate(CONTRAST_INPUTS)
        context.close()
    assert len(found[WIDE]) == 2
    assert [place.rsplit(">", 1)[-1] for place in unseen_contrast(found[NARROW], found[WIDE])] == ["P1"]


def test_a_first_visit_tab_fetches_everything_again_on_each_visit(browser, built_site):
    """What the layout-shift measurement relies on: a page loaded again in the same tab comes from
    the server as a whole (fonts and stylesheets included), with its storage emptied."""
    fetched = collections.Counter()

    class Counting(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802 (http.server's name)
            cached = self.headers["If-Modified-Since"] or self.headers["If-None-Match"]
            fetched[self.path + (" (revalidated)" if cached else "")] += 1
            super().do_GET()

    path = site_pages(built_site)[0]
    with serving(built_site, handler=Counting) as base:
        context, page, devtools = first_visit_tab(browser, NARROW)
        try:
            for _ in range(2):
                devtools.send("Storage.clearDataForOrigin", {"origin": base, "storageTypes": "all"})
                page.goto(base + path, wait_until="networkidle")
                page.evaluate("document.fonts.ready.then(() => true)")
                assert page.evaluate("localStorage.getItem('seen')") is None
                page.evaluate("localStorage.setItem('seen', '1')")
        finally:
            context.close()
    assert any(name.endswith(".woff2") for name in fetched), sorted(fetched)
    assert set(fetched.values()) == {2}, sorted(fetched.items())
