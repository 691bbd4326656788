"""Accessibility: axe-core (npm devDependency, served from node_modules into the page) over every
page of the built site, light and dark, at desktop and phone width: no serious or critical
violation. A failure lists each rule with the selectors of the elements that break it."""

from __future__ import annotations

import pytest

from helpers import REPO, site_pages

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = {"serious", "critical"}

RUN_AXE = """async () => {
    const result = await axe.run(document, {resultTypes: ['violations']});
    return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => n.target.join(' ') + (n.failureSummary ?
            ' — ' + n.failureSummary.split('\\n').slice(1, 2).join(' ').trim() : ''))}));
}"""


def axe_violations(page, url: str) -> list[dict]:
    """axe's violations on `url`, loaded fresh in `page` as a reader's browser would show it."""
    page.goto(url, wait_until="networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    # Let the page's own scripts finish their idle-time work (phone.js's scrolling boxes).
    page.evaluate("new Promise(done => requestIdleCallback(() => setTimeout(done, 50), {timeout: 3000}))")
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE)


def report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']} ({v['help']}), {len(v['nodes'])} element(s):")
        lines += [f"    {node}" for node in v["nodes"][:8]]
    return "\n".join(lines)


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation(browser, server, built_site, scheme, width):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run 'make docs' (npm ci installs axe-core)")
    failures = []
    # One tab for every page, each navigated to afresh (as a reader goes from page to page).
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        for path in [*site_pages(built_site), "/404.html"]:
            blocking = [v for v in axe_violations(page, server + path) if v["impact"] in BLOCKING]
            if blocking:
                failures.append(f"{path} ({scheme}, {width} px):\n{report(blocking)}")
    finally:
        context.close()
    assert not failures, "\n".join(failures)
