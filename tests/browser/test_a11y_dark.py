"""Accessibility in the dark scheme: axe's colour rules over every page at desktop width, and at
phone width on a page whose text there shows contrast inputs the desktop run did not see
(tests/browser/test_a11y.py, which runs every rule in the light scheme)."""

from __future__ import annotations

import pytest

from helpers import site_pages
from tests.browser.test_a11y import (
    AXE,
    CONTRAST_INPUTS,
    NARROW,
    WIDE,
    blocking,
    load,
    options,
    report,
    unseen_contrast,
)


def test_axe_finds_no_serious_violation_in_the_dark_scheme(browser, server, built_site):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run 'make docs' (npm ci installs axe-core)")
    failures = []
    # One tab for every page at each width, each navigated to afresh (as a reader goes from page to page).
    contexts = [browser.new_context(color_scheme="dark", viewport={"width": width, "height": 812})
                for width in (WIDE, NARROW)]
    try:
        wide, narrow = (context.new_page() for context in contexts)
        for path in [*site_pages(built_site), "/404.html"]:
            load(wide, server + path)
            load(narrow, server + path)
            colour = bool(unseen_contrast(narrow.evaluate(CONTRAST_INPUTS), wide.evaluate(CONTRAST_INPUTS)))
            for page, width, chosen in ((wide, WIDE, options(True, False)),
                                        (narrow, NARROW, options(colour, False))):
                found = blocking(page, chosen)
                if found:
                    failures.append(f"{path} (dark, {width} px):\n{report(found)}")
    finally:
        for context in contexts:
            context.close()
    assert not failures, "\n".join(failures)
