"""Math typeset at build time (anatomia_engine/katex.py, called by the anatomia plugin).

- the renderer itself: KaTeX's MathML for arithmatex's spans/divs (trimmed: no xmlns, no
  redundant cell styles, accented letters of `\\text{}` whole), one node round trip per batch,
  a cache by formula, the same bytes twice, and bad TeX stopping a real `mkdocs build` with the
  page, the line and the formula;
- the built site in Chromium: math readable with JavaScript off (no `\\(`…`\\)` left, every
  formula MathML that the browser lays out as math: a fraction's numerator above its
  denominator), no KaTeX script, CSS or font on any page, and no layout shift (CLS 0, measured
  with a PerformanceObserver of `layout-shift`) on every page at phone and desktop size.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import unicodedata

import pytest

from anatomia_engine import katex

PAGES = ["/", "/krok-po-kroku/", "/posty/", "/posty/llm-mechanizm-uwagi/", "/posty/tagi/",
         "/laby/lab-3/", "/llm/anatomia/", "/jak-dodac-wartosc/"]
MATH_PAGES = ["/krok-po-kroku/", "/posty/llm-mechanizm-uwagi/", "/laby/lab-3/", "/llm/anatomia/"]


# --- the renderer ---------------------------------------------------------------------------

def test_inline_and_display_become_mathml_without_katex_html():
    out = katex.render_html('<p>Niech <span class="arithmatex">\\(a &lt; b_1\\)</span>.</p>'
                            '<div class="arithmatex">\\[\\frac{x}{2}\\]</div>')
    assert "\\(" not in out and "\\[" not in out
    assert out.count('class="katex"') == 2
    assert out.count("<math") == 2 and out.count('<math display="block">') == 1
    assert "katex-html" not in out and "xmlns" not in out   # no HTML rendering, no namespace noise
    assert '<div class="arithmatex arithmatex-display">' in out
    assert "<mo>&lt;</mo>" in out                           # the HTML entity reached KaTeX as "<"
    assert "<mfrac><mi>x</mi><mn>2</mn></mfrac>" in out
    assert '<annotation encoding="application/x-tex">\\frac{x}{2}</annotation>' in out


def test_notebook_display_span_is_marked_display():
    out = katex.render_html('<p><span class="arithmatex arithmatex-display">\\[y = x\\]</span></p>')
    assert out.startswith('<p><span class="arithmatex arithmatex-display"><span class="katex">'
                          '<math display="block">')


def _math_text(html: str) -> list[str]:
    """The text of each MathML token element of `html`, the TeX annotation left out."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(f"<r>{html}</r>")
    return [el.text for el in root.iter() if el.tag in ("mi", "mn", "mo", "mtext") and el.text]


@pytest.mark.parametrize("word", ["przepustowość", "źdźbło", "gęś", "żółć", "Łódź"])
def test_polish_words_in_text_stay_whole_words(word):
    """KaTeX sets an accented letter of \\text{} as a base letter under a spacing accent; the page
    gets the word as written in the source, one `mtext`, in NFC."""
    out = katex.render_html(f'<span class="arithmatex">\\(x_{{\\text{{{word}}}}}\\)</span>')
    assert unicodedata.normalize("NFC", word) in _math_text(out)
    assert "<mover" not in out


def test_subscript_text_is_not_merged_into_its_base():
    out = katex.render_html('<span class="arithmatex">\\(\\text{score}_{\\text{general}} + '
                            '\\text{score}_{\\text{ogólny}}\\)</span>')
    assert "<msub><mtext>score</mtext><mtext>general</mtext></msub>" in out
    assert "<msub><mtext>score</mtext><mrow><mtext>ogólny</mtext></mrow></msub>" in out


def test_matrix_cells_lose_only_the_redundant_style():
    out = katex.render_html('<div class="arithmatex">\\[\\begin{bmatrix}1 & \\frac12\\end{bmatrix}'
                            '\\begin{aligned} a &= \\dfrac{1}{2} \\end{aligned}\\]</div>')
    assert 'displaystyle="false"' not in out
    assert "<mtd><mn>1</mn></mtd>" in out
    assert out.count('<mtd><mstyle scriptlevel="0" displaystyle="true">') == 2   # aligned's cells keep theirs


@pytest.mark.parametrize("tex, variant, letters", [
    ("\\mathbb{R}", "double-struck", "R"), ("\\mathbb{E}", "double-struck", "E"),
    ("\\mathcal{L}", "script", "L"), ("\\mathcal{N}", "script", "N"), ("\\mathbf{x}", "bold", "x")])
def test_math_alphabets_become_unicode_letters(tex, variant, letters):
    """MathML Core has no mathvariant but "normal": the letter itself must be the styled one.
    Golden: the Unicode character database's name of the letter (e.g. DOUBLE-STRUCK CAPITAL R)."""
    out = katex.render_html(f'<span class="arithmatex">\\({tex}\\)</span>')
    assert "mathvariant" not in out
    name = {"double-struck": "DOUBLE-STRUCK", "script": "SCRIPT", "bold": "BOLD"}[variant]
    case = "CAPITAL" if letters.isupper() else "SMALL"
    tokens = [t for t in _math_text(out)
              if len(t) == 1 and unicodedata.name(t, "").endswith(f"{case} {letters.upper()}")]
    assert tokens and name in unicodedata.name(tokens[0]), _math_text(out)


def test_function_names_get_tex_thin_space_before_an_argument_only():
    out = katex.render_html('<span class="arithmatex">\\(\\cos m + \\exp(x)\\)</span>')
    assert '<mi>cos</mi><mo rspace="0.1667em">\u2061</mo><mi>m</mi>' in out
    assert '<mi>exp</mi><mo>\u2061</mo><mo stretchy="false">(</mo>' in out


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
    assert out.count('class="katex"') == 2 and out.count("<math") == 2
    assert "\\(" not in out and "\\[" not in out


# --- the built site ---------------------------------------------------------------------------


# Every formula is MathML the browser lays out as math: its box has a size, and a fraction's
# numerator sits above its denominator (as inline text they would sit side by side).
MATH_LAYOUT = """() => {
    const all = [...document.querySelectorAll('article .arithmatex')];   // details opened first
    const empty = all.filter(el => {
        const m = el.querySelector('math');
        if (!m) return true;
        const r = m.getBoundingClientRect();
        return !(r.width > 0 && r.height > 0);
    }).map(el => el.textContent.slice(0, 60));
    const fracs = [...document.querySelectorAll('article mfrac')].map(f => {
            const [num, den] = [...f.children].map(c => c.getBoundingClientRect());
            return num.bottom <= den.top + 1 && num.width > 0 && den.width > 0;
        });
    return {total: all.length, empty, fracs: fracs.length, stacked: fracs.filter(Boolean).length,
            family: all.length ? getComputedStyle(all[0].querySelector('math')).fontFamily : ''};
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


