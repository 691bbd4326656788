"""Provenance of a number in prose: the popover of docs/javascripts/provenance.js in Chromium.

A small static page built here carries numbers written as the engine writes them (the HTML
contract: span.num with data-exact, data-what, data-source + data-function or data-cite), with
the site's provenance.js and provenance.css. The popover must give the same information on hover,
keyboard focus and tap, close with Escape, stay inside a 375 px screen, and be the number's
accessible description (heard once: the name is the number as printed, no title attribute).
The real site is checked too, in tests/browser/test_a11y.py's visits (check_numbers): every
number there is focusable and opens its popover.
"""

from __future__ import annotations

import html
import shutil

import pytest

from helpers import REPO, serving
from tests.browser.page_checks import tip_state

NUMS = [
    # (id, text, attributes) — what the engine emits for a computed and for a quoted number
    ("n1", "0,64", {"data-exact": "0,6442755", "data-what": "waga: chases patrzy na chases",
                    "data-source": "figures_src/worked_example.py", "data-function": "weights"}),
    ("n2", "2", {"data-exact": "2", "data-cite": "Dao (2023)"}),
    ("n3", "−1,5", {"data-exact": "−1,483", "data-source": "figures_src/masking.py",
                    "data-function": "scores"}),
]


def num_html(ident: str, text: str, attrs: dict[str, str]) -> str:
    extra = " ".join(f'{k}="{html.escape(v)}"' for k, v in attrs.items())
    return f'<span class="num" id="{ident}" tabindex="0" {extra}>{text}</span>'


@pytest.fixture(scope="module")
def fixture_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("provenance")
    shutil.copy(REPO / "docs/javascripts/provenance.js", root / "provenance.js")
    shutil.copy(REPO / "docs/stylesheets/provenance.css", root / "provenance.css")
    body = "".join(f"<p>Liczba {num_html(*n)} w zdaniu, dalej tekst akapitu.</p>" for n in NUMS)
    (root / "index.html").write_text(
        '<!doctype html><html lang="pl"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="stylesheet" href="provenance.css"></head>'
        f'<body><article class="md-typeset">{body}<p><button id="away">inny element</button></p>'
        '<p id="far">Inny akapit.</p></article>'
        '<script src="provenance.js"></script></body></html>', encoding="utf-8")
    with serving(root) as base:
        yield base + "/index.html"


def expected_parts(attrs: dict[str, str]) -> list[str]:
    parts = [attrs["data-exact"]]
    if "data-what" in attrs:
        parts.append(attrs["data-what"])
    if "data-cite" in attrs:
        parts.append("z pracy " + attrs["data-cite"])
    else:
        parts += [attrs["data-source"], attrs["data-function"]]
    return parts


@pytest.fixture
def page(browser, fixture_site):
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    page = context.new_page()
    page.goto(fixture_site)
    yield page
    context.close()


@pytest.mark.parametrize("index", range(len(NUMS)))
def test_keyboard_focus_shows_value_what_and_where(page, index):
    ident, _text, attrs = NUMS[index]
    for _ in range(index + 1):
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == ident
    state = tip_state(page)
    assert state["shown"], "focus did not open the popover"
    assert state["role"] == "tooltip"
    for part in expected_parts(attrs):
        assert part in state["text"], f"{part!r} missing from the popover: {state['text']!r}"
    if "data-cite" in attrs:
        assert not state["code"], "a quoted number names a module"
    else:
        # the module is a detail in code type; the reader's sentences never name a file
        assert attrs["data-source"] in state["code"] and "z pracy" not in state["text"]
        assert ".py" not in state["prose"], state["prose"]
    page.keyboard.press("Escape")
    assert not tip_state(page)["shown"], "Escape did not close the popover"
    assert page.evaluate("document.activeElement.id") == ident, "Escape moved the focus"


def test_hover_opens_and_leaving_closes(page):
    box = page.locator("#n2").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    state = tip_state(page)
    assert state["shown"] and "z pracy Dao (2023)" in state["text"]
    far = page.locator("#far").bounding_box()
    page.mouse.move(far["x"] + 5, far["y"] + 5)
    page.wait_for_timeout(600)
    assert not tip_state(page)["shown"], "the popover stayed after the pointer left"


def test_no_title_and_described_once(page):
    """The accessible name is the number as printed, the description is the popover's text."""
    page.keyboard.press("Tab")
    assert page.evaluate("[...document.querySelectorAll('.num')].filter(n => n.title).length") == 0
    cdp = page.context.new_cdp_session(page)
    cdp.send("Accessibility.enable")
    doc = cdp.send("DOM.getDocument")
    node = cdp.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": "#n1"})
    tree = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node["nodeId"], "fetchRelatives": False})
    ax = tree["nodes"][0]
    name = ax.get("name", {}).get("value", "")
    description = ax.get("description", {}).get("value", "")
    attrs = NUMS[0][2]
    assert name == NUMS[0][1], f"accessible name {name!r}"
    for part in expected_parts(attrs):
        assert description.count(part) == 1, f"{part!r} in description {description!r}"


def test_tap_opens_stays_open_and_tap_elsewhere_closes(browser, fixture_site):
    context = browser.new_context(viewport={"width": 375, "height": 812}, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(fixture_site)
        page.tap("#n1")
        page.wait_for_timeout(100)
        state = tip_state(page)
        assert state["shown"], "a tap did not open the popover"
        assert "0,6442755" in state["text"]
        rect = page.evaluate("(() => { const r = document.getElementById('num-tip')"
                             ".getBoundingClientRect(); return [r.left, r.right]; })()")
        assert rect[0] >= 0 and rect[1] <= 375, f"popover outside a 375 px screen: {rect}"
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        page.tap("#far")
        page.wait_for_timeout(100)
        assert not tip_state(page)["shown"], "a tap elsewhere did not close the popover"
        page.tap("#n2")
        page.wait_for_timeout(100)
        assert "z pracy Dao (2023)" in tip_state(page)["text"]
    finally:
        context.close()
