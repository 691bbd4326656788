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

from helpers import REPO, serving, site_pages
from tests.browser.page_checks import check_page, watch
from tests.browser.test_chrome import CHROME_TEXT, check_chrome_contrast
from tests.browser.test_provenance import check_numbers

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = {"serious", "critical"}
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
WIDE, NARROW = 1280, 375

RUN_AXE = """async (options) => {
    const result = await axe.run(document, {...options, resultTypes: ['violations']});
    return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => n.target.join(' ') + (n.failureSummary ?
            ' — ' + n.failureSummary.split('\\n').slice(1, 2).join(' ').trim() : ''))}));
}"""

# What a text's contrast depends on, for every element with text of its own that axe's colour rules
# would examine (shown, not left of or above the page): its colour, whether it is large text (WCAG:
# 24 px, or bold 18,66 px), its shadow, the backgrounds behind it up to the first opaque one, and
# its opacity. Keyed by the element's place in the document.
CONTRAST_INPUTS = """() => {
    const place = (el) => {
        const steps = [];
        for (; el.parentElement; el = el.parentElement) {
            steps.unshift(el.tagName + [...el.parentElement.children].indexOf(el));
        }
        return steps.join('>');
    };
    const found = {};
    for (const el of document.body.querySelectorAll('*')) {
        if (![...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim())) continue;
        const box = el.getBoundingClientRect();
        if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})
            || box.right <= 0 || box.bottom <= 0) continue;
        const style = getComputedStyle(el);
        const size = parseFloat(style.fontSize);
        const inputs = [style.color, size >= 24 || (parseInt(style.fontWeight) >= 700 && size >= 18.66),
                        style.textShadow];
        let opacity = 1;
        for (let e = el; e; e = e.parentElement) {
            const s = getComputedStyle(e);
            opacity *= parseFloat(s.opacity);
            if (s.backgroundImage !== 'none') inputs.push(s.backgroundImage);
            if (s.backgroundColor !== 'rgba(0, 0, 0, 0)') {
                inputs.push(s.backgroundColor);
                if (!s.backgroundColor.startsWith('rgba')) break;
            }
        }
        found[place(el)] = [...inputs, opacity].join(' | ');
    }
    return found;
}"""


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


def load(page, url: str) -> None:
    """`url` loaded fresh in `page` as a reader's browser would show it, with axe added."""
    page.goto(url, wait_until="networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    # Let the page's own scripts finish their idle-time work (phone.js's scrolling boxes).
    page.evaluate("new Promise(done => requestIdleCallback(() => setTimeout(done, 50), {timeout: 3000}))")
    page.add_script_tag(path=str(AXE))


def options(colour: bool, other: bool) -> dict | None:
    """axe.run's options for its default rules: the colour rules, the others, both, or none."""
    if colour and other:
        return {}
    if colour:
        return {"runOnly": {"type": "rule", "values": COLOUR_RULES}}
    return {"rules": {rule: {"enabled": False} for rule in COLOUR_RULES}} if other else None


def report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']} ({v['help']}), {len(v['nodes'])} element(s):")
        lines += [f"    {node}" for node in v["nodes"][:8]]
    return "\n".join(lines)


def unseen_contrast(narrow: dict, wide: dict) -> list[str]:
    """The elements whose contrast inputs at phone width the desktop run did not see."""
    return [place for place, inputs in narrow.items() if wide.get(place) != inputs]


def blocking(page, chosen: dict | None) -> list[dict]:
    """axe's serious and critical violations on `page` with the options `chosen` (None: no run)."""
    violations = page.evaluate(RUN_AXE, chosen) if chosen is not None else []
    return [v for v in violations if v["impact"] in BLOCKING]


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
