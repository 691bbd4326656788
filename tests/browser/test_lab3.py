"""Lab 3: the notebook page is executed at build time, light, and agrees with attn_core.

Page tests read the strict build of the real site (`built_site`). The plugin's notebook tests run
the anatomia plugin on small projects in tmp_path; builds of a broken copy use the real
venv's mkdocs (tests/helpers.py).
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from helpers import whole_page
from tests.lab3_page import PAGE

# --- helpers ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return BeautifulSoup(whole_page(built_site / PAGE), "html.parser")   # closed boxes put back


# --- the inputs module --------------------------------------------------------------------


# --- the notebook source ------------------------------------------------------------------


# --- the built page -----------------------------------------------------------------------


def test_math_in_the_lab_is_typeset_in_the_browser(server, browser):
    page = browser.new_page()
    page.goto(server + "/" + PAGE.removesuffix("index.html"), wait_until="networkidle")
    typeset = page.locator(".jupyter-wrapper .jp-RenderedMarkdown .arithmatex > math").count()
    left = page.evaluate("""() => [...document.querySelectorAll('.jupyter-wrapper .jp-RenderedMarkdown')]
        .map(c => c.innerText).join('\\n')""")
    page.close()
    assert typeset > 50
    assert "$" not in left, left[max(0, left.find("$") - 80):left.find("$") + 80]
