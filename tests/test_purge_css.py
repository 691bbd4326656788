"""Material's stylesheets trimmed after the build (anatomia_engine/purge_css.py, hooks/purge_css.py).

The decisive check renders every page twice in Chromium, once with the trimmed stylesheets and once
with Material's own (swapped in on the wire), and compares the computed style of every element, in
both colour schemes and with the search dialog open on results: trimming must change nothing a
reader sees. The other tests take the step apart on a small site of its own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import material
import pytest

from anatomia_engine import purge_css
from helpers import REPO

MATERIAL_CSS = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"
PAGES = ["/", "/krok-po-kroku/", "/posty/llm-mechanizm-uwagi/", "/posty/glowy-indukcyjne/",
         "/laby/lab-3/", "/llm/anatomia/", "/jak-dodac-wartosc/", "/posty/", "/posty/tagi/",
         "/404.html"]
PROPERTIES = ["display", "visibility", "position", "color", "background-color", "background-image",
              "font-family", "font-size", "font-weight", "font-style", "line-height", "text-decoration-line",
              "margin-top", "margin-left", "padding-top", "padding-left", "border-top-width",
              "border-top-color", "width", "height", "overflow-x", "opacity", "transform",
              "mask-image", "outline-style", "white-space", "text-align", "cursor"]
SETTLED_JS = """async () => {   // Material adds buttons and wrappers after load: wait until it stops
  await document.fonts.ready;
  let last = -1;
  for (let n = document.querySelectorAll('*').length; n !== last; n = document.querySelectorAll('*').length) {
    last = n;
    await new Promise((done) => setTimeout(done, 300));
  }
}"""
STYLES_JS = """(props) => Array.from(document.querySelectorAll('body *'), (el) => {
  const s = getComputedStyle(el);
  const b = getComputedStyle(el, '::before');
  return el.tagName + '.' + el.className + ' ' + props.map((p) => s.getPropertyValue(p)).join('|')
    + ' ::before ' + b.getPropertyValue('content') + b.getPropertyValue('mask-image');
})"""


# --- the built site -------------------------------------------------------------------------------

def test_built_pages_name_trimmed_stylesheets_that_exist(built_site):
    for page in sorted(built_site.rglob("*.html")):
        names = re.findall(r'assets/stylesheets/((?:main|palette)\.[0-9a-f]{8}\.min\.css)',
                           page.read_text(encoding="utf-8"))
        assert len(names) == 2, page
        for name in names:
            trimmed = built_site / "assets" / "stylesheets" / name
            assert trimmed.is_file(), (page, name)
            assert not (MATERIAL_CSS / name).exists(), f"{page} still names Material's {name}"
    for original in MATERIAL_CSS.glob("*.min.css"):
        assert not (built_site / "assets" / "stylesheets" / original.name).exists()
        assert not (built_site / "assets" / "stylesheets" / f"{original.name}.map").exists()


def _swap_in_material(page) -> list[str]:
    """Answer requests for the trimmed stylesheets with Material's own; the names answered."""
    swapped: list[str] = []

    def fulfil(route):
        stem = route.request.url.rsplit("/", 1)[1].split(".", 1)[0]        # main or palette
        original = next(MATERIAL_CSS.glob(f"{stem}.*.min.css"))
        route.fulfill(body=original.read_bytes(), content_type="text/css")
        swapped.append(original.name)
    page.route(re.compile(r".*/assets/stylesheets/(main|palette)\.[0-9a-f]{8}\.min\.css$"), fulfil)
    return swapped


def _styles(browser, url: str, scheme: str, original: bool, search: str | None = None,
            scroll_and_copy: bool = False, width: int = 375, open_boxes: bool = False) -> list[str]:
    context = browser.new_context(viewport={"width": width, "height": 812}, color_scheme=scheme,
                                  reduced_motion="reduce", permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        swapped = _swap_in_material(page) if original else []
        page.goto(url, wait_until="networkidle")
        if open_boxes:    # closed boxes whose body loads from its own file when opened (lazy_details)
            page.evaluate("document.querySelectorAll('details:has(> p.lazy-details)')"
                          ".forEach(d => { d.open = true; })")
            page.wait_for_function("() => !document.querySelector('details > p.lazy-details')")
        assert sorted(swapped) == (sorted(p.name for p in MATERIAL_CSS.glob("*.min.css")) if original else [])
        if search is not None:
            page.keyboard.press("s")          # Material's shortcut opens the search dialog
            page.keyboard.type(search)
            page.wait_for_selector(".md-search-result__item")
        if scroll_and_copy:       # states Material's script sets: header shadow, active contents link,
            page.mouse.wheel(0, 3000)                                     # the "copied" dialog
            page.wait_for_selector(".md-header--shadow")
            page.locator(".md-code__button").first.click()
            page.wait_for_selector(".md-dialog--active")
        page.evaluate(SETTLED_JS)
        return page.evaluate(STYLES_JS, PROPERTIES)
    finally:
        context.close()


def _first_difference(trimmed: list[str], full: list[str]) -> str:
    if len(trimmed) != len(full):
        return f"{len(trimmed)} elements with the trimmed stylesheets, {len(full)} with Material's"
    for a, b in zip(trimmed, full):
        if a != b:
            return f"trimmed: {a}\nMaterial's: {b}"
    return ""


@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_trimming_changes_no_computed_style(browser, server, path, scheme, width):
    trimmed = _styles(browser, server + path, scheme, original=False, width=width)
    full = _styles(browser, server + path, scheme, original=True, width=width)
    assert trimmed and not _first_difference(trimmed, full), _first_difference(trimmed, full)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["/posty/llm-mechanizm-uwagi/", "/laby/lab-3/"])
def test_trimming_changes_nothing_in_boxes_loaded_on_opening(browser, server, path, scheme):
    trimmed = _styles(browser, server + path, scheme, original=False, open_boxes=True)
    full = _styles(browser, server + path, scheme, original=True, open_boxes=True)
    assert any("md-typeset__scrollwrap" in row for row in trimmed)       # a figure's data table
    assert not _first_difference(trimmed, full), _first_difference(trimmed, full)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_trimming_keeps_the_search_dialog_and_its_results(browser, server, scheme):
    trimmed = _styles(browser, server + "/", scheme, original=False, search="uwaga")
    full = _styles(browser, server + "/", scheme, original=True, search="uwaga")
    assert any("md-search-result__item" in row for row in trimmed)
    assert not _first_difference(trimmed, full), _first_difference(trimmed, full)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_trimming_keeps_what_scrolling_and_copying_code_show(browser, server, scheme):
    trimmed = _styles(browser, server + "/jak-dodac-wartosc/", scheme, original=False, scroll_and_copy=True)
    full = _styles(browser, server + "/jak-dodac-wartosc/", scheme, original=True, scroll_and_copy=True)
    assert any("md-dialog--active" in row for row in trimmed)
    assert not _first_difference(trimmed, full), _first_difference(trimmed, full)


# --- the step on a small site -------------------------------------------------------------------

def _small_site(root: Path) -> Path:
    site = root / "site"
    (site / "assets" / "stylesheets").mkdir(parents=True)
    (site / "assets" / "javascripts" / "lunr").mkdir(parents=True)
    (site / "assets" / "stylesheets" / "main.00000000.min.css").write_text(
        ".md-used{color:red}.md-unused{color:blue}.md-made-by-script{top:0}"
        ".md-tip--open{left:0}[id^=\"fnref:\"]:target{color:green}"
        ":root{--md-read:1px;--md-never-read:2px}.md-used{width:var(--md-read)}"
        "/*# sourceMappingURL=main.00000000.min.css.map*/", encoding="utf-8")
    (site / "assets" / "stylesheets" / "main.00000000.min.css.map").write_text("{}", encoding="utf-8")
    (site / "assets" / "stylesheets" / "palette.00000000.min.css").write_text(
        ":root{--md-set-here-read-there:3px}.md-palette-unused{color:red}", encoding="utf-8")
    (site / "own.css").write_text(".x{margin:var(--md-set-here-read-there)}", encoding="utf-8")
    (site / "assets" / "javascripts" / "bundle.js").write_text(
        'el.className="md-made-by-script";el.classList.add("md-tip--"+state)', encoding="utf-8")
    (site / "assets" / "javascripts" / "lunr" / "lunr.pl.js").write_text('"md-unused"', encoding="utf-8")
    (site / "index.html").write_text(
        '<link rel="stylesheet" href="assets/stylesheets/main.00000000.min.css">'
        '<link rel="stylesheet" href="assets/stylesheets/palette.00000000.min.css">'
        '<p class="md-used"><sup id="fnref:1">1</sup></p>', encoding="utf-8")
    return site


def test_unused_rules_go_used_ones_stay_and_pages_follow_the_new_name(tmp_path):
    site = _small_site(tmp_path)
    renamed = purge_css.purge_site(site, cache=tmp_path / "cache")
    new_main = renamed["main.00000000.min.css"][0]
    assert re.fullmatch(r"main\.[0-9a-f]{8}\.min\.css", new_main) and new_main != "main.00000000.min.css"
    css = (site / "assets" / "stylesheets" / new_main).read_text(encoding="utf-8")
    for kept in (".md-used", ".md-made-by-script", ".md-tip--open", '[id^="fnref:"]', "--md-read"):
        assert kept in css, kept
    for dropped in (".md-unused", "--md-never-read", "sourceMappingURL"):
        assert dropped not in css, dropped
    palette = (site / "assets" / "stylesheets" / renamed["palette.00000000.min.css"][0]).read_text()
    assert "--md-set-here-read-there" in palette and ".md-palette-unused" not in palette
    html = (site / "index.html").read_text(encoding="utf-8")
    assert f"assets/stylesheets/{new_main}" in html and "00000000" not in html
    assert sorted(p.name for p in (site / "assets" / "stylesheets").iterdir()) == sorted(
        new for new, _, _ in renamed.values())


def test_a_rule_used_only_in_a_closed_boxs_file_stays_and_the_file_follows_the_new_name(tmp_path):
    site = _small_site(tmp_path)
    main = site / "assets" / "stylesheets" / "main.00000000.min.css"
    main.write_text(main.read_text(encoding="utf-8") + ".md-only-in-a-box{color:red}", encoding="utf-8")
    box = site / "posty" / "x" / "ramka-0123456789ab.html"        # as hooks/lazy_details.py writes it
    box.parent.mkdir(parents=True)
    box.write_text('<link rel="stylesheet" href="../../assets/stylesheets/main.00000000.min.css">'
                   '<article class="md-typeset"><p class="md-only-in-a-box">x</p></article>',
                   encoding="utf-8")
    renamed = purge_css.purge_site(site, cache=tmp_path / "cache")
    new_main = renamed["main.00000000.min.css"][0]
    assert ".md-only-in-a-box" in (site / "assets" / "stylesheets" / new_main).read_text(encoding="utf-8")
    assert f"assets/stylesheets/{new_main}" in box.read_text(encoding="utf-8")


def test_the_result_is_stored_and_a_damaged_entry_is_worked_out_again(tmp_path, monkeypatch):
    first = purge_css.purge_site(_small_site(tmp_path / "a"), cache=tmp_path / "cache")
    [entry] = (tmp_path / "cache").iterdir()
    calls = []
    real = purge_css._run_purgecss
    monkeypatch.setattr(purge_css, "_run_purgecss", lambda *a: calls.append(1) or real(*a))
    assert purge_css.purge_site(_small_site(tmp_path / "b"), cache=tmp_path / "cache") == first
    assert calls == []                                   # same inputs: node was not started
    entry.write_bytes(entry.read_bytes()[:-5])           # truncated
    assert purge_css.purge_site(_small_site(tmp_path / "c"), cache=tmp_path / "cache") == first
    assert calls == [1]


def test_a_failing_purgecss_stops_with_its_message_and_changes_nothing(tmp_path, monkeypatch):
    site = _small_site(tmp_path)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    monkeypatch.setattr(purge_css, "NODE_MODULES", tmp_path / "no_node_modules")
    with pytest.raises(purge_css.PurgeError, match="PurgeCSS failed"):
        purge_css.purge_site(site, cache=tmp_path / "cache")
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_a_site_without_material_stylesheets_is_an_error(tmp_path):
    (tmp_path / "index.html").write_text("<p>x</p>", encoding="utf-8")
    with pytest.raises(purge_css.PurgeError, match="main"):
        purge_css.purge_site(tmp_path, cache=tmp_path / "cache")


def test_dynamic_prefixes_and_read_variables_are_found():
    assert purge_css.dynamic_prefixes([b'a("md-tooltip--"+s);`md-nav__link--${x}`;"md-whole"']) == [
        "md-nav__link--", "md-tooltip--"]
    assert purge_css.used_variables([b"a{b:var(--md-a);c:var( --md-b, 1px)}", b"--md-c:1"]) == [
        "--md-a", "--md-b"]


def test_the_hook_runs_after_the_link_check_and_not_under_serve():
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "hooks/purge_css.py" in config
    from hooks import links, purge_css as hook
    assert hook.on_post_build.mkdocs_priority < links.on_post_build.mkdocs_priority
    hook.on_startup("serve", dirty=False)
    try:
        assert hook.on_post_build(type("Config", (), {"site_dir": "/nonexistent"})()) is None
    finally:
        hook.on_startup("build", dirty=False)
    assert json.loads((REPO / "package.json").read_text())["dependencies"]["purgecss"]


# --- the theme switch ------------------------------------------------------------------------------

COUNT_TRANSITIONS_JS = """() => {
  window.__transitions = 0;
  document.addEventListener('transitionrun', () => { window.__transitions += 1; }, true);
}"""


def _transitions_on_switch(browser, url: str, unmarked: bool = False) -> list[int]:
    """Transitions started by each of two clicks on the palette toggle (light -> dark -> light);
    `unmarked`: with extra.css's rule for `[data-palette-switching]` taken out."""
    context = browser.new_context(viewport={"width": 1280, "height": 812}, color_scheme="light",
                                  reduced_motion="no-preference")
    page = context.new_page()
    try:
        if unmarked:
            def without_rule(route):
                css = route.fetch().text()
                assert "[data-palette-switching] *" in css
                route.fulfill(body=css.replace("[data-palette-switching]", "[data-no-such-mark]"),
                              content_type="text/css")
            page.route(re.compile(r".*/stylesheets/extra\.css$"), without_rule)
        page.goto(url, wait_until="networkidle")
        page.evaluate(SETTLED_JS)
        page.evaluate(COUNT_TRANSITIONS_JS)
        counts = []
        for _ in range(2):
            before = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
            # a click from the script: the pointer stays put, so no hover fades the toggle's icon
            page.evaluate("document.querySelector('form[data-palette] label:not([hidden])').click()")
            page.wait_for_function("(s) => document.body.getAttribute('data-md-color-scheme') !== s", arg=before)
            page.wait_for_timeout(400)
            counts.append(page.evaluate("window.__transitions"))
            page.evaluate("window.__transitions = 0")
        return counts
    finally:
        context.close()


@pytest.mark.parametrize("path", ["/posty/llm-mechanizm-uwagi/", "/jak-dodac-wartosc/"])
def test_switching_the_theme_fades_nothing(browser, server, path):
    assert _transitions_on_switch(browser, server + path) == [0, 0]
    # Without extra.css's rule for the mark that docs/javascripts/palette.js sets, the same clicks
    # start transitions (links change colour): the check above can fail.
    assert min(_transitions_on_switch(browser, server + path, unmarked=True)) > 0
