"""Math typeset at build time (anatomia_engine/mathml.py, run by the anatomia plugin's extension).

- the renderer itself: Temml's MathML for arithmatex's spans/divs (no xmlns, accented letters of
  `\\text{}` whole, a prefix minus, Unicode math letters), one node round trip per batch,
  a cache by formula, the same bytes twice, and bad TeX stopping a real `mkdocs build` with the
  page, the line and the formula;
- the built site in Chromium: math readable with JavaScript off (no `\\(`…`\\)` left, every
  formula MathML that the browser lays out as math: a fraction's numerator above its
  denominator), in the site's own math font, and no layout shift (CLS 0, measured
  with a PerformanceObserver of `layout-shift`) on every page at phone and desktop size.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata

import pytest

from anatomia_engine import mathml, sentinels
from anatomia_engine.errors import EngineError


def typeset(html: str) -> str:
    return mathml.MathRenderer().typeset(html)

# --- the renderer ---------------------------------------------------------------------------

def test_inline_and_display_become_mathml():
    out = typeset('<p>Niech <span class="arithmatex">\\(a &lt; b_1\\)</span>.</p>'
                            '<div class="arithmatex">\\[\\frac{x}{2}\\]</div>')
    assert "\\(" not in out and "\\[" not in out
    assert out.count("<math") == 2 and out.count('<math display="block"') == 1
    assert "xmlns" not in out                               # no namespace noise
    assert '<div class="arithmatex arithmatex-display">' in out
    assert "<mo>&lt;</mo>" in out                           # the HTML entity reached Temml as "<"
    assert "<mfrac><mi>x</mi><mn>2</mn></mfrac>" in out
    assert '<annotation encoding="application/x-tex">\\frac{x}{2}</annotation>' in out


def test_notebook_display_span_is_marked_display():
    out = typeset('<p><span class="arithmatex arithmatex-display">\\[y = x\\]</span></p>')
    assert out.startswith('<p><span class="arithmatex arithmatex-display"><math display="block"')


def _math_text(html: str) -> list[str]:
    """The text of each MathML token element of `html`, the TeX annotation left out."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(f"<r>{html}</r>")
    return [el.text for el in root.iter() if el.tag in ("mi", "mn", "mo", "mtext") and el.text]


@pytest.mark.parametrize("word", ["przepustowość", "źdźbło", "gęś", "żółć", "Łódź"])
def test_polish_words_in_text_stay_whole_words(word):
    """The page gets a word of \\text{} as written in the source, one `mtext`, in NFC."""
    out = typeset(f'<span class="arithmatex">\\(x_{{\\text{{{word}}}}}\\)</span>')
    assert unicodedata.normalize("NFC", word) in _math_text(out)
    assert "<mover" not in out


@pytest.mark.parametrize("tex, variant, letters", [
    ("\\mathbb{R}", "double-struck", "R"), ("\\mathbb{E}", "double-struck", "E"),
    ("\\mathcal{L}", "script", "L"), ("\\mathcal{N}", "script", "N"), ("\\mathbf{x}", "bold", "x")])
def test_math_alphabets_become_unicode_letters(tex, variant, letters):
    """MathML Core has no mathvariant but "normal": the letter itself must be the styled one.
    Golden: the Unicode character database's name of the letter (e.g. DOUBLE-STRUCK CAPITAL R)."""
    out = typeset(f'<span class="arithmatex">\\({tex}\\)</span>')
    assert "mathvariant" not in out
    name = {"double-struck": "DOUBLE-STRUCK", "script": "SCRIPT", "bold": "BOLD"}[variant]
    case = "CAPITAL" if letters.isupper() else "SMALL"
    tokens = [t for t in _math_text(out)
              if len(t) == 1 and unicodedata.name(t, "").endswith(f"{case} {letters.upper()}")]
    assert tokens and name in unicodedata.name(tokens[0]), _math_text(out)


def test_what_the_system_fonts_set_badly_is_written_for_display():
    """A unary minus is a prefix operator (no binary spacing), a function name is followed by
    TeX's thin space, a prime is a superscript."""
    out = typeset('<span class="arithmatex">\\(a = -\\infty, \\cos m, f\'(x)\\)</span>')
    assert '<mo form="prefix" stretchy="false">\u2212</mo>' in out
    assert '<mi>cos</mi><mo>\u2061</mo><mspace width="0.1667em"></mspace>' in out
    assert re.search(r"<msup><mi>f</mi><mo[^>]*>\u2032</mo></msup>", out), out


def test_a_live_slot_is_typeset_as_its_tex_and_kept_as_the_formula_template():
    tex = "x = " + sentinels.slot('"w 0"', "dec:2", "0{,}35") + " + 1"
    out = typeset(f'<span class="arithmatex">\\({tex}\\)</span>')
    assert "<mn>0,35</mn>" in out and sentinels.SLOT_OPEN not in out
    found = re.search(r'data-tex="([^"]*)"', out)
    assert json.loads(html.unescape(found.group(1))) == ["x = ", {"expr": "w 0", "fmt": "dec:2"}, " + 1"]
    assert "}}" not in out.split("<math")[0]                # the page's output check reads no placeholder


def test_a_formula_is_typeset_once_per_page_and_output_is_deterministic():
    fresh = mathml.MathRenderer()
    html = '<span class="arithmatex">\\(e^{i\\pi} + 1 = 0\\)</span>'
    jobs = [("e^{i\\pi} + 1 = 0", False)] * 3
    first = fresh.render_many(jobs)
    assert fresh.formulas_typeset == 1 and list(first) == jobs[:1]
    assert first == mathml.MathRenderer().render_many(jobs)
    assert typeset(html) == typeset(html)


@pytest.mark.parametrize(("script", "expected"), [
    (None, ("katex_missing", "path")),
    ("process.stderr.write('out of memory'); process.exit(3);", ("katex_died", "problem"))])
def test_a_missing_or_failing_temml_stops_the_build(tmp_path, script, expected):
    if script is not None:
        (tmp_path / "dist").mkdir()
        (tmp_path / "dist" / "temml.cjs").write_text(script)
    with pytest.raises(EngineError) as info:
        mathml.MathRenderer(package=tmp_path).render_many([("x", False)])
    assert (info.value.id, *info.value.fields) == expected
    if script is not None:
        assert info.value.fields["problem"] == "out of memory"


def test_markdown_extension_after_arithmatex():
    """The placeholder extension given a renderer typesets math, without MkDocs."""
    import markdown

    from anatomia_engine.state import BuildState

    md = markdown.Markdown(
        extensions=["pymdownx.arithmatex", BuildState().extension()],
        extension_configs={"pymdownx.arithmatex": {"generic": True, "inline_syntax": ["round"]}})
    out = md.convert("Tekst \\(x_i\\) i wzór:\n\n\\[\ny = \\sum_i x_i\n\\]\n")
    assert out.count("<math") == 2
    assert "\\(" not in out and "\\[" not in out


def test_bad_tex_on_a_page_names_its_file_and_line():
    """The page being converted is the one render_page registered, even with no placeholder."""
    from tests.unit.demo_page import page

    with pytest.raises(EngineError) as info:
        page("Wzór:\n\n\\(\\frac{1}\\)\n")
    assert info.value.id == "katex_typeset"
    assert info.value.where == "docs/x.md:6"
    assert info.value.fields["math"] == "\\(\\frac{1}\\)"


# --- the built site ---------------------------------------------------------------------------


