"""Math typeset at build time (anatomia_engine/katex.py, hooks/katex.py).

- the renderer itself: KaTeX's HTML for arithmatex's spans/divs, one node round trip per batch,
  a cache by formula, the same bytes twice, and bad TeX stopping a real `mkdocs build` with the
  page, the line and the formula;
- the built site in Chromium: math readable with JavaScript off (no `\\(`…`\\)` left, KaTeX's
  HTML and MathML in the page), no KaTeX script on any page, and no layout shift (CLS 0,
  measured with a PerformanceObserver of `layout-shift`) on every page at phone and desktop size.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from anatomia_engine import katex
from helpers import REPO

PAGES = ["/", "/krok-po-kroku/", "/posty/", "/posty/llm-mechanizm-uwagi/", "/posty/tagi/",
         "/laby/lab-3/", "/llm/anatomia/", "/jak-dodac-wartosc/"]
MATH_PAGES = ["/krok-po-kroku/", "/posty/llm-mechanizm-uwagi/", "/laby/lab-3/", "/llm/anatomia/"]


# --- the renderer ---------------------------------------------------------------------------

def test_inline_and_display_become_katex_html_with_mathml():
    out = katex.render_html('<p>Niech <span class="arithmatex">\\(a &lt; b_1\\)</span>.</p>'
                            '<div class="arithmatex">\\[\\frac{x}{2}\\]</div>')
    assert "\\(" not in out and "\\[" not in out
    assert out.count('class="katex"') == 2
    assert out.count("<math") == 2                          # MathML for screen readers
    assert '<span class="katex-display">' in out            # the \[ … \] one is display math
    assert '<div class="arithmatex arithmatex-display">' in out
    assert "<mo>&lt;</mo>" in out                           # the HTML entity reached KaTeX as "<"


def test_notebook_display_span_is_marked_display():
    out = katex.render_html('<p><span class="arithmatex arithmatex-display">\\[y = x\\]</span></p>')
    assert out.startswith('<p><span class="arithmatex arithmatex-display"><span class="katex-display">')


def test_cache_typesets_a_formula_once_and_output_is_deterministic():
    fresh = katex.KatexRenderer()
    try:
        html = '<span class="arithmatex">\\(e^{i\\pi} + 1 = 0\\)</span>'
        jobs = [("e^{i\\pi} + 1 = 0", False)] * 3
        first = fresh.render_many(jobs)
        assert fresh.formulas_typeset == 1
        fresh.render_many(jobs)
        assert fresh.formulas_typeset == 1
    finally:
        fresh.close()
    other = katex.KatexRenderer()
    try:
        again = other.render_many(jobs)
    finally:
        other.close()
    assert first == again
    assert katex.render_html(html) == katex.render_html(html)


def test_markdown_extension_after_arithmatex():
    import markdown

    md = markdown.Markdown(
        extensions=["pymdownx.arithmatex", "anatomia_engine.katex"],
        extension_configs={"pymdownx.arithmatex": {"generic": True, "inline_syntax": ["round"]}})
    out = md.convert("Tekst \\(x_i\\) i wzór:\n\n\\[\ny = \\sum_i x_i\n\\]\n")
    assert out.count('class="katex"') == 2 and "\\(" not in out and "\\[" not in out


def test_bad_tex_stops_the_build_naming_page_line_and_formula(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(
        "# Strona\n\nDobry wzór \\(x^2\\).\n\nZły wzór \\(\\frac{1}\\) w zdaniu.\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(textwrap.dedent(f"""\
        site_name: t
        markdown_extensions:
          - pymdownx.arithmatex:
              generic: true
              inline_syntax: [round]
          - anatomia_engine.katex
        hooks:
          - {REPO / 'hooks' / 'katex.py'}
        """), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode != 0, "a formula KaTeX cannot typeset did not stop the build"
    log = proc.stdout + proc.stderr
    assert "docs/index.md:5" in log, log
    assert "\\frac{1}" in log, log
    assert not (tmp_path / "site" / "index.html").exists()


# --- the built site ---------------------------------------------------------------------------

def test_no_page_ships_the_katex_script(built_site):
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "katex.min.js" not in text and "auto-render" not in text, page
    assert not (built_site / "assets" / "katex" / "katex.min.js").exists()


@pytest.mark.parametrize("path", MATH_PAGES)
def test_math_is_readable_with_javascript_off(browser, server, path):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(server + path, wait_until="load")
        text = page.evaluate("document.querySelector('article').innerText")
        for delim in ("\\(", "\\)", "\\[", "\\]"):
            assert delim not in text, f"raw TeX {delim!r} visible on {path} without JavaScript"
        typeset = page.evaluate("document.querySelectorAll('.arithmatex .katex-html').length")
        total = page.evaluate("document.querySelectorAll('.arithmatex').length")
        assert total > 0 and typeset == total, f"{typeset} of {total} formulas typeset on {path}"
        # KaTeX's fonts apply: a typeset letter is set in KaTeX's face, not the page's.
        family = page.evaluate("getComputedStyle(document.querySelector('.katex')).fontFamily")
        assert "KaTeX_Main" in family
    finally:
        context.close()


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


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("width", [375, 1280])
def test_no_layout_shift(browser, server, path, width):
    context = browser.new_context(viewport={"width": width, "height": 812})
    page = context.new_page()
    try:
        page.add_init_script(CLS_OBSERVER)
        page.goto(server + path, wait_until="networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_timeout(300)
        cls = page.evaluate("window.__cls")
        assert cls == 0, f"CLS {cls} on {path} at {width} px: {page.evaluate('window.__shifts')}"
    finally:
        context.close()
