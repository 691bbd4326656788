"""Accessibility in the dark scheme: axe's colour rules over every page at desktop width, and at
phone width on a page whose text there shows contrast inputs the desktop run did not see
(tests/browser/test_a11y.py, which runs every rule in the light scheme). The same desktop visits
make tests/browser/page_checks.py's checks of a page in the dark scheme."""

from __future__ import annotations

import pytest

from helpers import site_pages
from tests.browser.page_checks import (
    AXE,
    CHROME_TEXT,
    CONTRAST_INPUTS,
    NARROW,
    WIDE,
    blocking,
    check_chrome_contrast,
    check_page,
    load,
    options,
    report,
    unseen_contrast,
    watch,
)


@pytest.fixture(scope="module")
def dark(browser, server, built_site) -> dict:
    """Every page in the dark scheme, one tab for each width, each navigated to afresh (as a reader
    goes from page to page): axe's blocking violations, and in the desktop tab, once axe has run,
    the checks of tests/browser/page_checks.py (offline, math typeset, the dark figures load and
    the light ones stay hidden, the chrome's contrast) that test_a11y.py's light visits make."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run 'make docs' (npm ci installs axe-core)")
    found: dict = {"axe": [], "page": [], "formulas": 0}
    pages = site_pages(built_site)
    contexts = [browser.new_context(color_scheme="dark", viewport={"width": width, "height": 812})
                for width in (WIDE, NARROW)]
    try:
        wide, narrow = (context.new_page() for context in contexts)
        outside, failed = watch(wide)
        for path in [*pages, "/404.html"]:
            outside.clear()
            failed.clear()
            load(wide, server + path)
            load(narrow, server + path)
            colour = bool(unseen_contrast(narrow.evaluate(CONTRAST_INPUTS), wide.evaluate(CONTRAST_INPUTS)))
            for page, width, chosen in ((wide, WIDE, options(True, False)),
                                        (narrow, NARROW, options(colour, False))):
                violations = blocking(page, chosen)
                if violations:
                    found["axe"].append(f"{path} (dark, {width} px):\n{report(violations)}")
            if path not in pages:
                continue
            try:
                if path in CHROME_TEXT:
                    check_chrome_contrast(wide, path, "dark")
                # a font the checks made the page draw loads before the failures are read
                wide.evaluate("document.fonts.ready.then(() => true)")
                found["formulas"] += check_page(wide, path, "dark", outside, failed)
            except AssertionError as error:
                found["page"].append(f"{path} (dark): {error}")
    finally:
        for context in contexts:
            context.close()
    return found


def test_axe_finds_no_serious_violation_in_the_dark_scheme(dark):
    assert not dark["axe"], "\n".join(dark["axe"])


def test_every_page_is_offline_typeset_and_its_figures_load_in_the_dark_scheme(dark):
    """tests/browser/page_checks.py's checks of every page, in the dark scheme."""
    assert not dark["page"], "\n".join(dark["page"])
    assert dark["formulas"] > 10, f"only {dark['formulas']} typeset formulas on the whole site"
