"""Accessibility: axe-core (npm devDependency, served from node_modules into the page) over every
page of the built site, light and dark, at desktop and phone width: no serious or critical
violation. A failure lists each rule with the selectors of the elements that break it.

axe's colour rules run in both schemes at desktop width, where every page shows the most text; at
phone width they run too on any page whose text there has colours, backgrounds or a text size (what
contrast depends on) that the desktop run did not see. The other rules run in the light scheme at
both widths: a scheme sets colours only (tests/site/test_site.py checks the stylesheets)."""

from __future__ import annotations

import pytest

from helpers import REPO, site_pages

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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation(browser, server, built_site, scheme):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run 'make docs' (npm ci installs axe-core)")
    failures = []
    other = scheme == "light"
    # One tab for every page at each width, each navigated to afresh (as a reader goes from page to page).
    contexts = [browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
                for width in (WIDE, NARROW)]
    try:
        wide, narrow = (context.new_page() for context in contexts)
        for path in [*site_pages(built_site), "/404.html"]:
            load(wide, server + path)
            load(narrow, server + path)
            colour = bool(unseen_contrast(narrow.evaluate(CONTRAST_INPUTS), wide.evaluate(CONTRAST_INPUTS)))
            for page, width, chosen in ((wide, WIDE, options(True, other)),
                                        (narrow, NARROW, options(colour, other))):
                violations = page.evaluate(RUN_AXE, chosen) if chosen is not None else []
                blocking = [v for v in violations if v["impact"] in BLOCKING]
                if blocking:
                    failures.append(f"{path} ({scheme}, {width} px):\n{report(blocking)}")
    finally:
        for context in contexts:
            context.close()
    assert not failures, "\n".join(failures)


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
